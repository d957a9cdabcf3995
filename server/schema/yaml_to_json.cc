#include "server/schema/yaml_to_json.h"

#include "base/base64.h"
#include "server/validation/field_error.h"

#include <boost/json.hpp>
#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/mark.h>
#include <yaml-cpp/parser.h>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <sstream>
#include <unordered_map>

namespace kapi::schema {
namespace {

namespace json = boost::json;

constexpr std::string_view kCoreTag = "tag:yaml.org,2002:";

// go-yaml v2 (decode.go, allowedAliasRatio): up to 400,000 decoded nodes, 99% may come from alias expansion; from
// 4,000,000 on, 10%; in between the share falls linearly.
double allowed_alias_ratio(std::size_t decoded) {
  constexpr double kLow = 400000, kHigh = 4000000;
  if (decoded <= kLow) return 0.99;
  if (decoded >= kHigh) return 0.10;
  return 0.99 - 0.89 * ((static_cast<double>(decoded) - kLow) / (kHigh - kLow));
}

[[noreturn]] void fail(const std::string& message) { throw YamlError("yaml: " + message); }

[[noreturn]] void fail_at(int zero_based_line, const std::string& message) {
  fail("line " + std::to_string(zero_based_line + 1) + ": " + message);
}


std::string shortest(double value, bool as_float32) {
  char buffer[64];
  auto result = as_float32 ? std::to_chars(buffer, buffer + sizeof buffer, static_cast<float>(value))
                           : std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, result.ptr);
}

// strconv.ParseInt(text, 0, 64), falling back to ParseUint for values above int64 as go-yaml does: an optional
// sign, then 0x / 0o / 0b / a leading 0 (octal) or decimal digits.
std::optional<json::value> parse_go_integer(std::string_view text) {
  bool negative = false, signed_text = false;
  if (!text.empty() && (text.front() == '+' || text.front() == '-')) {
    negative = text.front() == '-';
    signed_text = true;
    text.remove_prefix(1);
  }
  int base = 10;
  if (text.size() > 1 && text[0] == '0') {
    const char prefix = static_cast<char>(std::tolower(static_cast<unsigned char>(text[1])));
    if (prefix == 'x') base = 16, text.remove_prefix(2);
    else if (prefix == 'o') base = 8, text.remove_prefix(2);
    else if (prefix == 'b') base = 2, text.remove_prefix(2);
    else base = 8, text.remove_prefix(1);
  }
  if (text.empty()) return std::nullopt;
  std::uint64_t magnitude = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), magnitude, base);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  constexpr auto kMaxInt = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  if (negative) {
    if (magnitude > kMaxInt + 1) return std::nullopt;
    return json::value(magnitude == kMaxInt + 1 ? std::numeric_limits<std::int64_t>::min()
                                                : -static_cast<std::int64_t>(magnitude));
  }
  if (magnitude <= kMaxInt) return json::value(static_cast<std::int64_t>(magnitude));
  if (signed_text) return std::nullopt;  // ParseUint takes no sign
  return json::value(magnitude);
}

// go-yaml's yamlStyleFloat: ^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$
bool is_yaml_style_float(std::string_view text) {
  std::size_t i = 0;
  auto digits = [&]() {
    std::size_t start = i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
    return i - start;
  };
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
  if (i < text.size() && text[i] == '.') {
    ++i;
    if (digits() == 0) return false;
  } else {
    if (digits() == 0) return false;
    if (i < text.size() && text[i] == '.') {
      ++i;
      digits();
    }
  }
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
    if (digits() == 0) return false;
  }
  return i == text.size();
}

std::optional<double> parse_float(std::string_view text) {
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  double value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// go-yaml v2's resolve() for a plain scalar: its table of YAML 1.1 words, then integers, then floats; anything
// else is a string. Returns the tag it resolved to ("str", "int", ...) with the value.
std::pair<std::string_view, json::value> resolve_plain(const std::string& text) {
  static const std::unordered_map<std::string_view, std::pair<std::string_view, json::value>> kWords = [] {
    std::unordered_map<std::string_view, std::pair<std::string_view, json::value>> words;
    for (auto word : {"y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"})
      words.emplace(word, std::pair{"bool", json::value(true)});
    for (auto word : {"n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"})
      words.emplace(word, std::pair{"bool", json::value(false)});
    for (auto word : {"", "~", "null", "Null", "NULL"}) words.emplace(word, std::pair{"null", json::value(nullptr)});
    for (auto word : {".nan", ".NaN", ".NAN"})
      words.emplace(word, std::pair{"float", json::value(std::numeric_limits<double>::quiet_NaN())});
    for (auto word : {".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"})
      words.emplace(word, std::pair{"float", json::value(std::numeric_limits<double>::infinity())});
    for (auto word : {"-.inf", "-.Inf", "-.INF"})
      words.emplace(word, std::pair{"float", json::value(-std::numeric_limits<double>::infinity())});
    return words;
  }();
  const char first = text.empty() ? 'N' : text.front();
  const bool digit = first >= '0' && first <= '9';
  const bool sign = first == '+' || first == '-';
  const bool word = std::string_view("yYnNtTfFoO~N").find(first) != std::string_view::npos;
  if (!digit && !sign && !word && first != '.') return {"str", json::value(text)};
  if (auto found = kWords.find(text); found != kWords.end()) return found->second;
  if (first == '.') {
    if (auto value = parse_float(text)) return {"float", json::value(*value)};
  } else if (digit || sign) {
    std::string plain;
    for (char c : text)
      if (c != '_') plain += c;
    if (auto integer = parse_go_integer(plain)) return {"int", std::move(*integer)};
    if (is_yaml_style_float(plain))
      if (auto value = parse_float(plain)) return {"float", json::value(*value)};
  }
  return {"str", json::value(text)};
}

// A scalar with its tag as yaml-cpp reports it: "?" plain, "!" quoted, "tag:yaml.org,2002:int" for !!int.
json::value resolve_scalar(const std::string& tag, const std::string& text) {
  if (tag == "?") return resolve_plain(text).second;
  if (!tag.starts_with(kCoreTag)) return json::value(text);  // quoted, or a tag go-yaml leaves as a string
  const std::string_view wanted = std::string_view(tag).substr(kCoreTag.size());
  if (wanted == "str" || wanted == "timestamp") return json::value(text);
  if (wanted == "binary") {
    auto decoded = base::base64_decode(text);
    if (!decoded) fail("!!binary value contains invalid base64 data");
    return json::value(*decoded);
  }
  if (wanted != "bool" && wanted != "int" && wanted != "float" && wanted != "null") return json::value(text);
  auto [resolved, value] = resolve_plain(text);
  if (resolved == wanted) return value;
  if (wanted == "float" && resolved == "int") return json::value(value.is_int64() ? static_cast<double>(value.get_int64())
                                                                               : static_cast<double>(value.get_uint64()));
  fail("cannot decode !!" + std::string(resolved) + " `" + text + "` as a !!" + std::string(wanted));
}

// As encoding/json writes a decoded value: integral floats without a fraction ("3", not "3.0"), NaN and ±Inf
// refused.
json::value as_go_json(json::value value) {
  if (!value.is_double()) return value;
  const double number = value.get_double();
  if (std::isnan(number)) throw YamlError("json: unsupported value: NaN");
  if (std::isinf(number)) throw YamlError(number > 0 ? "json: unsupported value: +Inf" : "json: unsupported value: -Inf");
  if (number == std::trunc(number) && std::fabs(number) < 1e21) {
    if (number >= -9223372036854775808.0 && number < 9223372036854775808.0)
      return json::value(static_cast<std::int64_t>(number));
    if (number >= 0 && number < 18446744073709551616.0) return json::value(static_cast<std::uint64_t>(number));
  }
  return value;
}

// sigs.k8s.io/yaml's conversion of a map key to a JSON object key; %#v-like text for go-yaml's duplicate message.
std::string key_string(const json::value& key) {
  switch (key.kind()) {
    case json::kind::string: return std::string(key.get_string());
    case json::kind::int64: return std::to_string(key.get_int64());
    case json::kind::uint64: return std::to_string(key.get_uint64());
    case json::kind::bool_: return key.get_bool() ? "true" : "false";
    case json::kind::double_: {
      const double number = key.get_double();
      if (std::isnan(number)) return ".nan";
      if (std::isinf(number)) return number > 0 ? ".inf" : "-.inf";
      return shortest(number, true);
    }
    case json::kind::null: throw YamlError("Unsupported map key of type: %!s(<nil>), key: <nil>");
    default: fail("invalid map key: " + json::serialize(key));
  }
}

std::string key_repr(const json::value& key) {
  if (key.is_string()) return validation::quoted(key.get_string());  // strconv.Quote, as %#v prints a string key
  if (key.is_double()) return shortest(key.get_double(), false);
  return key_string(key);
}

// One finished node: its value and what go-yaml would have decoded to make it.
struct Node {
  json::value value;
  std::size_t nodes = 1;  // decoded nodes, alias expansions included
  std::size_t bytes = 0;  // scalar text, alias expansions included
  std::size_t depth = 0;  // nesting below this node
  int line = 0;           // zero-based
  bool merge_key = false; // a plain "<<"
};

struct Frame {
  bool mapping = false;
  YAML::anchor_t anchor = YAML::NullAnchor;
  int line = 0;
  std::size_t nodes = 1, bytes = 0, depth = 0;
  json::array items;
  std::map<std::string, json::value> entries;  // sorted, as encoding/json writes a Go map
  std::optional<Node> key;
};

struct Anchor {
  std::string name;
  bool complete = false;
  Node node;
};

class Builder : public YAML::EventHandler {
 public:
  Builder(const YamlLimits& limits, std::size_t input_size)
      : limits_(limits), alias_byte_budget_(8 * input_size + 64 * 1024) {}

  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}

  void OnAnchor(const YAML::Mark&, const std::string& name) override { pending_anchor_name_ = name; }

  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    finish(Node{.value = nullptr, .line = mark.line}, anchor);
  }

  void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                const std::string& text) override {
    Node node{.value = resolve_scalar(tag, text), .bytes = text.size(), .line = mark.line};
    node.merge_key = tag == "?" && text == "<<";
    finish(std::move(node), anchor);
  }

  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    Anchor& target = anchors_[anchor];
    if (!target.complete) fail("anchor '" + target.name + "' value contains itself");
    alias_nodes_ += target.node.nodes;
    decoded_ += target.node.nodes + 1;
    alias_bytes_ += target.node.bytes;
    if ((alias_nodes_ > 100 && decoded_ > 1000 &&
         static_cast<double>(alias_nodes_) / static_cast<double>(decoded_) > allowed_alias_ratio(decoded_)) ||
        alias_bytes_ > alias_byte_budget_)
      fail("document contains excessive aliasing");
    if (stack_.size() + target.node.depth > limits_.max_depth) exceeded_depth(mark.line);
    Node copy = target.node;  // copied only once the budget allows it
    copy.nodes += 1;
    copy.line = mark.line;
    copy.merge_key = false;
    deliver(std::move(copy));
  }

  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    open(false, mark, anchor);
  }
  void OnSequenceEnd() override { close(); }

  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    open(true, mark, anchor);
  }
  void OnMapEnd() override { close(); }

  YamlDocument take() {
    YamlDocument document;
    if (root_) document.value = std::move(*root_);
    document.duplicate_keys = std::move(duplicates_);
    return document;
  }

 private:
  [[noreturn]] void exceeded_depth(int line) const {
    fail_at(line, "exceeded max depth of " + std::to_string(limits_.max_depth));
  }

  void name_anchor(YAML::anchor_t anchor) {
    if (anchor == YAML::NullAnchor) return;
    anchors_[anchor] = Anchor{.name = std::move(pending_anchor_name_)};
    pending_anchor_name_.clear();
  }

  void open(bool mapping, const YAML::Mark& mark, YAML::anchor_t anchor) {
    if (stack_.size() + 1 > limits_.max_depth) exceeded_depth(mark.line);
    name_anchor(anchor);
    ++decoded_;
    stack_.push_back(Frame{.mapping = mapping, .anchor = anchor, .line = mark.line});
  }

  void close() {
    Frame frame = std::move(stack_.back());
    stack_.pop_back();
    Node node{.nodes = frame.nodes, .bytes = frame.bytes, .depth = frame.depth + 1, .line = frame.line};
    if (frame.mapping) {
      json::object object;
      object.reserve(frame.entries.size());
      for (auto& [key, value] : frame.entries) object.emplace(key, std::move(value));
      node.value = std::move(object);
    } else {
      node.value = std::move(frame.items);
    }
    remember(frame.anchor, node);
    deliver(std::move(node));
  }

  void finish(Node node, YAML::anchor_t anchor) {
    name_anchor(anchor);
    ++decoded_;
    remember(anchor, node);
    deliver(std::move(node));
  }

  void remember(YAML::anchor_t anchor, const Node& node) {
    if (anchor == YAML::NullAnchor) return;
    Anchor& entry = anchors_[anchor];
    entry.node = node;
    entry.complete = true;
  }

  // Places a finished node in its parent: a sequence item, a mapping key or value, or the document.
  void deliver(Node node) {
    if (stack_.empty()) {
      root_ = as_go_json(std::move(node.value));
      return;
    }
    Frame& parent = stack_.back();
    parent.nodes += node.nodes;
    parent.bytes += node.bytes;
    parent.depth = std::max(parent.depth, node.depth);
    if (!parent.mapping) {
      parent.items.push_back(as_go_json(std::move(node.value)));
      return;
    }
    if (!parent.key) {
      if (node.value.is_object() || node.value.is_array()) fail("invalid map key: " + json::serialize(node.value));
      parent.key = std::move(node);
      return;
    }
    Node key = std::move(*parent.key);
    parent.key.reset();
    if (key.merge_key) return merge(parent, std::move(node.value));
    std::string name = key_string(key.value);
    json::value value = as_go_json(std::move(node.value));
    auto [slot, inserted] = parent.entries.try_emplace(std::move(name));
    if (!inserted)
      duplicates_.push_back("line " + std::to_string(node.line + 1) + ": key " + key_repr(key.value) +
                            " already set in map");
    slot->second = std::move(value);  // the later value wins, as in a Go map
  }

  // "<<: *base" or "<<: [*a, *b]": the merged mappings' keys, earlier ones taking precedence among them; keys
  // written after the merge override it.
  void merge(Frame& parent, json::value value) {
    auto merge_one = [&](json::value& source) {
      if (!source.is_object()) fail("map merge requires map or sequence of maps as the value");
      for (auto& entry : source.as_object()) parent.entries[std::string(entry.key())] = std::move(entry.value());
    };
    if (value.is_array()) {
      auto& list = value.as_array();
      for (auto it = list.rbegin(); it != list.rend(); ++it) merge_one(*it);
      return;
    }
    merge_one(value);
  }

  const YamlLimits& limits_;
  const std::size_t alias_byte_budget_;
  std::vector<Frame> stack_;
  std::unordered_map<YAML::anchor_t, Anchor> anchors_;
  std::string pending_anchor_name_;
  std::optional<json::value> root_;
  std::vector<std::string> duplicates_;
  std::size_t decoded_ = 0, alias_nodes_ = 0, alias_bytes_ = 0;
};

// yaml-cpp's words for a syntax error, in libyaml's (go-yaml's) words; scanner errors name the 1-based line,
// parser errors (go-yaml quirk) the 0-based one.
// The alias name at the error's position ("*name"): yaml-cpp's message does not carry it, go-yaml's does.
std::string alias_at(std::string_view yaml, std::size_t position) {
  if (position >= yaml.size() || yaml[position] != '*') return {};
  std::size_t end = position + 1;
  while (end < yaml.size() && std::string_view(" \t\r\n,[]{}").find(yaml[end]) == std::string_view::npos) ++end;
  return std::string(yaml.substr(position + 1, end - position - 1));
}

[[noreturn]] void rethrow_as_go_yaml(const YAML::ParserException& error, std::string_view yaml,
                                     const YamlLimits& limits) {
  struct Translation {
    std::string_view yaml_cpp;
    std::string_view go_yaml;
    bool scanner;
  };
  static const Translation kTranslations[] = {
      {YAML::ErrorMsg::MAP_VALUE, "mapping values are not allowed in this context", true},
      {YAML::ErrorMsg::BLOCK_ENTRY, "block sequence entries are not allowed in this context", true},
      {YAML::ErrorMsg::END_OF_MAP, "did not find expected key", false},
      {YAML::ErrorMsg::END_OF_SEQ, "did not find expected '-' indicator", false},
      {YAML::ErrorMsg::END_OF_MAP_FLOW, "did not find expected ',' or '}'", false},
      {YAML::ErrorMsg::END_OF_SEQ_FLOW, "did not find expected ',' or ']'", false},
      {YAML::ErrorMsg::TAB_IN_INDENTATION, "found character that cannot start any token", true},
      {YAML::ErrorMsg::UNKNOWN_TOKEN, "found character that cannot start any token", true},
      {YAML::ErrorMsg::EOF_IN_SCALAR, "found unexpected end of stream", true},
      {YAML::ErrorMsg::FLOW_END, "did not find expected node content", false},
  };
  const std::string& message = error.msg;
  if (message.starts_with(YAML::ErrorMsg::UNKNOWN_ANCHOR))
    fail("unknown anchor '" + alias_at(yaml, static_cast<std::size_t>(error.mark.pos)) + "' referenced");
  if (dynamic_cast<const YAML::DeepRecursion*>(&error))
    fail_at(error.mark.line, "exceeded max depth of " + std::to_string(limits.max_depth));
  for (const auto& translation : kTranslations) {
    if (message != translation.yaml_cpp) continue;
    const int line = translation.scanner ? error.mark.line + 1 : error.mark.line;
    if (line <= 0) fail(std::string(translation.go_yaml));
    fail("line " + std::to_string(line) + ": " + std::string(translation.go_yaml));
  }
  fail_at(error.mark.line, message);
}

}  // namespace

YamlDocument yaml_to_json(std::string_view yaml, const YamlLimits& limits) {
  std::istringstream input{std::string(yaml)};
  Builder builder(limits, yaml.size());
  try {
    YAML::Parser parser(input);
    parser.HandleNextDocument(builder);  // go-yaml's Unmarshal reads the first document only
  } catch (const YAML::ParserException& error) {
    rethrow_as_go_yaml(error, yaml, limits);
  } catch (const YAML::Exception& error) {
    fail(error.msg);
  }
  return builder.take();
}

std::string yaml_unmarshal_errors(const std::vector<std::string>& duplicate_keys) {
  std::string message = "yaml: unmarshal errors:";
  for (const auto& line : duplicate_keys) message += "\n  " + line;
  return message;
}

}  // namespace kapi::schema
