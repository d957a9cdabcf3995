// Values, path elements and paths (smd's value.Compare, fieldpath/element.go, path.go, serialize-pe.go); the Set
// trie and FieldsV1 are in fieldpath_set.cc.
#include "server/structured_merge/fieldpath.h"

#include "base/go_quote.h"
#include "server/patch/go_json.h"
#include "server/structured_merge/fieldpath_internal.h"
#include "server/structured_merge/jsoniter_text.h"

#include <boost/json/parse.hpp>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <limits>

namespace kapi::structured_merge {
namespace {

namespace json = boost::json;

template <typename T>
int three_way(const T& lhs, const T& rhs) {
  if (lhs < rhs) return -1;
  if (rhs < lhs) return 1;
  return 0;
}

int compare_strings(std::string_view lhs, std::string_view rhs) {
  const int c = lhs.compare(rhs);  // char_traits<char> compares as unsigned char, as Go's strings.Compare
  return c < 0 ? -1 : (c > 0 ? 1 : 0);
}

bool is_integer(const json::value& v) { return v.is_int64() || v.is_uint64(); }

double as_double(const json::value& v) {
  if (v.is_double()) return v.get_double();
  if (v.is_uint64()) return static_cast<double>(v.get_uint64());
  return static_cast<double>(v.get_int64());
}

int compare_integers(const json::value& lhs, const json::value& rhs) {
  if (lhs.is_int64() && rhs.is_int64()) return three_way(lhs.get_int64(), rhs.get_int64());
  if (lhs.is_uint64() && rhs.is_uint64()) return three_way(lhs.get_uint64(), rhs.get_uint64());
  // One of each: a negative int64 is below every uint64, the rest compare as unsigned.
  if (lhs.is_int64()) return lhs.get_int64() < 0 ? -1 : three_way(static_cast<std::uint64_t>(lhs.get_int64()), rhs.get_uint64());
  return rhs.get_int64() < 0 ? 1 : three_way(lhs.get_uint64(), static_cast<std::uint64_t>(rhs.get_int64()));
}

int compare_lists(const json::array& lhs, const json::array& rhs) {
  const std::size_t common = std::min(lhs.size(), rhs.size());
  for (std::size_t i = 0; i < common; ++i) {
    if (int c = compare_values(lhs[i], rhs[i]); c != 0) return c;
  }
  return three_way(lhs.size(), rhs.size());
}

std::vector<std::string_view> sorted_keys(const json::object& object) {
  std::vector<std::string_view> keys;
  keys.reserve(object.size());
  for (const auto& member : object) keys.push_back(member.key());
  std::sort(keys.begin(), keys.end());
  return keys;
}

// value.MapCompare: walks the union of both maps' keys in order, counting them; the walk's quirk (a map runs out
// when the count reaches its length, whichever keys it had) is kept, since it decides the order of set items.
int compare_maps(const json::object& lhs, const json::object& rhs) {
  if (lhs.empty() && rhs.empty()) return 0;
  const std::vector<std::string_view> lhs_keys = sorted_keys(lhs);
  const std::vector<std::string_view> rhs_keys = sorted_keys(rhs);
  std::size_t l = 0, r = 0, visited = 0;
  while (l < lhs_keys.size() || r < rhs_keys.size()) {
    const json::value* lhs_value = nullptr;
    const json::value* rhs_value = nullptr;
    if (r == rhs_keys.size() || (l < lhs_keys.size() && lhs_keys[l] < rhs_keys[r])) {
      lhs_value = &lhs.at(lhs_keys[l++]);
    } else if (l == lhs_keys.size() || rhs_keys[r] < lhs_keys[l]) {
      rhs_value = &rhs.at(rhs_keys[r++]);
    } else {
      lhs_value = &lhs.at(lhs_keys[l++]);
      rhs_value = &rhs.at(rhs_keys[r++]);
    }
    int c;
    if (visited == lhs.size()) c = -1;
    else if (visited == rhs.size()) c = 1;
    else if (lhs_value == nullptr) c = 1;
    else if (rhs_value == nullptr) c = -1;
    else c = compare_values(*lhs_value, *rhs_value);
    ++visited;
    if (c != 0) return c;
  }
  return 0;
}

// value.ToString, as PathElement.String shows an item's value.
std::string value_to_string(const json::value& value) {
  switch (value.kind()) {
    case json::kind::null: return "null";
    case json::kind::string: return base::go_quote(value.get_string());
    case json::kind::array: {
      std::string out = "[";
      bool first = true;
      for (const json::value& item : value.get_array()) {
        if (!first) out += ',';
        first = false;
        out += value_to_string(item);
      }
      return out + "]";
    }
    case json::kind::object: {
      std::string out;
      for (std::string_view key : sorted_keys(value.get_object())) {
        out.append(key);
        out += '=';
        out += value_to_string(value.get_object().at(key));
      }
      return out;
    }
    default: return patch::detail::go_value(value);  // numbers and booleans as fmt's %v
  }
}

// jsoniter reads every JSON number into a float64, so an item read back from FieldsV1 holds floats: they show as
// fmt's %v of a float64 in messages ("1e+06") and round to float64 as Go rounds them.
void numbers_to_doubles(json::value& value) {
  switch (value.kind()) {
    case json::kind::int64: value = static_cast<double>(value.get_int64()); break;
    case json::kind::uint64: value = static_cast<double>(value.get_uint64()); break;
    case json::kind::array:
      for (json::value& item : value.get_array()) numbers_to_doubles(item);
      break;
    case json::kind::object:
      for (auto& member : value.get_object()) numbers_to_doubles(member.value());
      break;
    default: break;
  }
}

std::optional<json::value> parse_json_value(std::string_view text, std::string& error) {
  json::parse_options options;
  options.max_depth = detail::kMaxFieldsDepth;
  options.allow_invalid_utf8 = true;  // jsoniter takes a string's bytes as they are
  json::error_code ec;
  json::value value = json::parse(text, ec, {}, options);
  if (ec) {
    error = ec.message();
    return std::nullopt;
  }
  numbers_to_doubles(value);
  return value;
}

}  // namespace

int compare_values(const json::value& lhs, const json::value& rhs) {
  // Numbers first (floats and integers compared numerically), then strings, booleans, lists, maps, and null last.
  if (lhs.is_double() || rhs.is_double()) {
    if (lhs.is_number() && rhs.is_number()) return three_way(as_double(lhs), as_double(rhs));
    return lhs.is_double() ? -1 : 1;
  }
  if (is_integer(lhs) || is_integer(rhs)) {
    if (is_integer(lhs) && is_integer(rhs)) return compare_integers(lhs, rhs);
    return is_integer(lhs) ? -1 : 1;
  }
  if (lhs.is_string() || rhs.is_string()) {
    if (lhs.is_string() && rhs.is_string()) return compare_strings(lhs.get_string(), rhs.get_string());
    return lhs.is_string() ? -1 : 1;
  }
  if (lhs.is_bool() || rhs.is_bool()) {
    if (lhs.is_bool() && rhs.is_bool()) return three_way(lhs.get_bool(), rhs.get_bool());
    return lhs.is_bool() ? -1 : 1;
  }
  if (lhs.is_array() || rhs.is_array()) {
    if (lhs.is_array() && rhs.is_array()) return compare_lists(lhs.get_array(), rhs.get_array());
    return lhs.is_array() ? -1 : 1;
  }
  if (lhs.is_object() || rhs.is_object()) {
    if (lhs.is_object() && rhs.is_object()) return compare_maps(lhs.get_object(), rhs.get_object());
    return lhs.is_object() ? -1 : 1;
  }
  return 0;  // both null
}

PathElement PathElement::field(std::string name) { return PathElement(Field{std::move(name)}); }

PathElement PathElement::key(Key key) {
  std::stable_sort(key.begin(), key.end(), [](const KeyField& a, const KeyField& b) { return a.name < b.name; });
  return PathElement(KeyItem{std::move(key)});
}

PathElement PathElement::value(json::value value) { return PathElement(ValueItem{std::move(value)}); }

PathElement PathElement::index(int index) { return PathElement(Index{index}); }

int PathElement::compare(const PathElement& other) const {
  // The variant's alternatives are declared in smd's order of kinds: fields, keys, values, indices.
  if (element_.index() != other.element_.index()) return element_.index() < other.element_.index() ? -1 : 1;
  switch (element_.index()) {
    case 0: return compare_strings(field_name(), other.field_name());
    case 1: {
      // value.FieldList.Compare: field by field, name then value, the shorter list first.
      const Key& lhs = key_fields();
      const Key& rhs = other.key_fields();
      const std::size_t common = std::min(lhs.size(), rhs.size());
      for (std::size_t i = 0; i < common; ++i) {
        if (int c = compare_strings(lhs[i].name, rhs[i].name); c != 0) return c;
        if (int c = compare_values(lhs[i].value, rhs[i].value); c != 0) return c;
      }
      return three_way(lhs.size(), rhs.size());
    }
    case 2: return compare_values(item_value(), other.item_value());
    default: return three_way(item_index(), other.item_index());
  }
}

std::string PathElement::serialize() const {
  std::string out;
  switch (element_.index()) {
    case 0:
      out.reserve(2 + field_name().size());
      out += "f:";
      out += field_name();  // written raw: the FieldsV1 member name escapes it once
      break;
    case 1: {
      out += "k:{";
      bool first = true;
      for (const KeyField& field : key_fields()) {
        if (!first) out += ',';
        first = false;
        detail::append_jsoniter_name(out, field.name);
        out += ':';
        detail::append_jsoniter_value(out, field.value);
      }
      out += '}';
      break;
    }
    case 2:
      out += "v:";
      detail::append_jsoniter_value(out, item_value());
      break;
    default:
      out += "i:";
      out += std::to_string(item_index());
  }
  return out;
}

std::optional<PathElement> PathElement::parse(std::string_view serialized) {
  return detail::parse_path_element(serialized).element;
}

std::string PathElement::to_string() const {
  switch (element_.index()) {
    case 0: return "." + field_name();
    case 1: {
      std::string out = "[";
      bool first = true;
      for (const KeyField& field : key_fields()) {
        if (!first) out += ',';
        first = false;
        out += field.name;
        out += '=';
        out += value_to_string(field.value);
      }
      return out + "]";
    }
    case 2: return "[=" + value_to_string(item_value()) + "]";
    default: return "[" + std::to_string(item_index()) + "]";
  }
}

std::string path_to_string(const Path& path) {
  std::string out;
  for (const PathElement& element : path) out += element.to_string();
  return out;
}

int compare_paths(const Path& lhs, const Path& rhs) {
  const std::size_t common = std::min(lhs.size(), rhs.size());
  for (std::size_t i = 0; i < common; ++i) {
    if (int c = lhs[i].compare(rhs[i]); c != 0) return c;
  }
  return three_way(lhs.size(), rhs.size());
}

namespace detail {

// DeserializePathElement.
ParsedPathElement parse_path_element(std::string_view serialized) {
  ParsedPathElement parsed;
  if (serialized.size() < 2) {
    parsed.error = "key must be 2 characters long:";
    return parsed;
  }
  if (serialized[1] != ':') {
    parsed.error = "missing colon: " + std::string(serialized);
    return parsed;
  }
  const std::string_view content = serialized.substr(2);
  switch (serialized[0]) {
    case 'f': parsed.element = PathElement::field(std::string(content)); break;
    case 'v': {
      std::optional<json::value> value = parse_json_value(content, parsed.error);
      if (value) parsed.element = PathElement::value(std::move(*value));
      break;
    }
    case 'k': {
      std::optional<json::value> value = parse_json_value(content, parsed.error);
      if (!value) {
        parsed.error = "ReadObjectCB: " + parsed.error;  // the reader jsoniter reports a key's errors from
        break;
      }
      Key key;
      if (value->is_object()) {
        key.reserve(value->get_object().size());
        for (auto& member : value->get_object()) key.push_back({std::string(member.key()), std::move(member.value())});
      } else if (!value->is_null()) {  // jsoniter's ReadObjectCB takes null as an object without fields
        parsed.error = "ReadObjectCB: expect { or n, but found " + std::string(content.substr(0, 1));
        break;
      }
      parsed.element = PathElement::key(std::move(key));
      break;
    }
    case 'i': {
      // strconv.Atoi: an optional sign, then decimal digits and nothing else.
      std::string_view digits = content;
      const bool plus = !digits.empty() && digits.front() == '+';
      if (plus) digits.remove_prefix(1);
      std::int64_t index = 0;
      const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), index);
      const bool whole = !digits.empty() && digits.front() != '+' && !(plus && digits.front() == '-') &&
                         end == digits.data() + digits.size();
      if (!whole || ec == std::errc::invalid_argument) {
        parsed.error = "strconv.Atoi: parsing " + base::go_quote(content) + ": invalid syntax";
      } else if (ec == std::errc::result_out_of_range || index < std::numeric_limits<int>::min() ||
                 index > std::numeric_limits<int>::max()) {
        parsed.error = "strconv.Atoi: parsing " + base::go_quote(content) + ": value out of range";
      } else {
        parsed.element = PathElement::index(static_cast<int>(index));
      }
      break;
    }
    default:
      parsed.unknown_type = true;
      parsed.error = "unknown path element type";
  }
  return parsed;
}

}  // namespace detail
}  // namespace kapi::structured_merge
