#include "server/patch/json_patch.h"

#include "base/go_json_errors.h"
#include "server/patch/go_json.h"
#include "server/patch/patch_error.h"

#include <charconv>
#include <optional>
#include <string>
#include <vector>

namespace kapi::patch {
namespace {

using boost::json::array;
using boost::json::object;
using boost::json::value;

const std::string kMissing = ": missing value";          // jsonpatch.ErrMissing
const std::string kInvalidIndex = ": invalid index referenced";  // jsonpatch.ErrInvalidIndex

// RFC 6901 unescaping, ~1 before ~0 as strings.NewReplacer applies them left to right.
std::string decode_key(std::string_view token) {
  std::string out;
  out.reserve(token.size());
  for (std::size_t i = 0; i < token.size(); ++i) {
    if (token[i] == '~' && i + 1 < token.size() && (token[i + 1] == '1' || token[i + 1] == '0')) {
      out += token[i + 1] == '1' ? '/' : '~';
      ++i;
    } else {
      out += token[i];
    }
  }
  return out;
}

// strconv.Atoi: an optional sign and decimal digits, within int64.
std::optional<std::int64_t> go_atoi(const std::string& s, std::string& error) {
  std::string_view digits = s;
  bool negative = false;
  if (!digits.empty() && (digits[0] == '+' || digits[0] == '-')) {
    negative = digits[0] == '-';
    digits.remove_prefix(1);
  }
  std::uint64_t magnitude = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), magnitude);
  bool all_digits = !digits.empty() && end == digits.data() + digits.size() &&
                    digits.find_first_not_of("0123456789") == std::string_view::npos;
  if (!all_digits) {
    error = "strconv.Atoi: parsing \"" + s + "\": invalid syntax";
    return std::nullopt;
  }
  constexpr std::uint64_t kMax = static_cast<std::uint64_t>(INT64_MAX);
  if (ec == std::errc::result_out_of_range || magnitude > kMax + (negative ? 1 : 0)) {
    error = "strconv.Atoi: parsing \"" + s + "\": value out of range";
    return std::nullopt;
  }
  return negative ? static_cast<std::int64_t>(0 - magnitude) : static_cast<std::int64_t>(magnitude);
}

std::string invalid_index(std::int64_t index) {
  return "Unable to access invalid index: " + std::to_string(index) + kInvalidIndex;
}

// evanphx's container interface over an object (partialDoc) or an array (partialArray). A null member reads as
// absent, as a nil *lazyNode does there. Each call answers an error text, empty on success.
struct Container {
  value* node;

  std::string get(const std::string& key, value*& out) const {
    out = nullptr;
    if (node->is_object()) {
      value* found = node->get_object().if_contains(key);
      if (found && !found->is_null()) out = found;
      return "";
    }
    array& items = node->get_array();
    std::string error;
    auto index = go_atoi(key, error);
    if (!index) return error;
    std::int64_t i = *index;
    auto size = static_cast<std::int64_t>(items.size());
    if (i < 0) {
      if (i < -size) return invalid_index(i);
      i += size;
    }
    if (i >= size) return invalid_index(i);
    if (!items[static_cast<std::size_t>(i)].is_null()) out = &items[static_cast<std::size_t>(i)];
    return "";
  }

  std::string add(const std::string& key, value v) const {
    if (node->is_object()) {
      node->get_object()[key] = std::move(v);
      return "";
    }
    array& items = node->get_array();
    if (key == "-") {
      items.push_back(std::move(v));
      return "";
    }
    std::string error;
    auto index = go_atoi(key, error);
    if (!index) return "value was not a proper array index: '" + key + "': " + error;
    std::int64_t i = *index;
    auto size = static_cast<std::int64_t>(items.size()) + 1;
    if (i >= size) return invalid_index(i);
    if (i < 0) {
      if (i < -size) return invalid_index(i);
      i += size;
    }
    items.insert(items.begin() + i, std::move(v));
    return "";
  }

  // Only after get() found `key`, as "replace" uses it.
  std::string set(const std::string& key, value v) const {
    if (node->is_object()) {
      node->get_object()[key] = std::move(v);
      return "";
    }
    array& items = node->get_array();
    std::string error;
    auto index = go_atoi(key, error);
    if (!index) return error;
    std::int64_t i = *index;
    auto size = static_cast<std::int64_t>(items.size());
    if (i < 0) {
      if (i < -size) return invalid_index(i);
      i += size;
    }
    if (i >= size) return invalid_index(i);
    items[static_cast<std::size_t>(i)] = std::move(v);
    return "";
  }

  std::string remove(const std::string& key) const {
    if (node->is_object()) {
      if (!node->get_object().erase(key)) return "Unable to remove nonexistent key: " + key + kMissing;
      return "";
    }
    array& items = node->get_array();
    std::string error;
    auto index = go_atoi(key, error);
    if (!index) return error;
    std::int64_t i = *index;
    auto size = static_cast<std::int64_t>(items.size());
    if (i >= size) return invalid_index(i);
    if (i < 0) {
      if (i < -size) return invalid_index(i);
      i += size;
    }
    items.erase(items.begin() + i);
    return "";
  }
};

struct Location {
  Container container;
  std::string key;
};

// jsonpatch's findObject: every segment but the last must name an existing object or array; the last is the key.
// Like evanphx, the first segment is skipped unread, so "a/b" addresses what "/b" does.
std::optional<Location> find_object(value& root, std::string_view path) {
  std::vector<std::string_view> segments;
  for (std::size_t start = 0;;) {
    std::size_t slash = path.find('/', start);
    segments.push_back(path.substr(start, slash == std::string_view::npos ? slash : slash - start));
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  if (segments.size() < 2) return std::nullopt;
  Container doc{&root};
  for (std::size_t i = 1; i + 1 < segments.size(); ++i) {
    value* next = nullptr;
    if (!doc.get(decode_key(segments[i]), next).empty() || !next) return std::nullopt;
    if (!next->is_object() && !next->is_array()) return std::nullopt;
    doc = Container{next};
  }
  return Location{doc, decode_key(segments.back())};
}

// RFC 6902's equality for "test". Numbers compare by value (evanphx compares their text: "1" vs "1.0" differ).
bool json_equal(const value& a, const value& b) {
  if (a.is_number() && b.is_number()) {
    if (a.is_double() || b.is_double()) return a.to_number<double>() == b.to_number<double>();
    return detail::go_equal(a, b);
  }
  if (a.kind() != b.kind()) return false;
  if (a.is_object()) {
    const object& x = a.get_object();
    const object& y = b.get_object();
    if (x.size() != y.size()) return false;
    for (const auto& member : x) {
      const value* other = y.if_contains(member.key());
      if (!other || !json_equal(member.value(), *other)) return false;
    }
    return true;
  }
  if (a.is_array()) {
    const array& x = a.get_array();
    const array& y = b.get_array();
    if (x.size() != y.size()) return false;
    for (std::size_t i = 0; i < x.size(); ++i) {
      if (!json_equal(x[i], y[i])) return false;
    }
    return true;
  }
  return a == b;
}

class Operation {
 public:
  explicit Operation(const object& op) : op_(op) {}

  std::string kind() const {
    const value* v = op_.if_contains("op");
    return v && v->is_string() ? std::string(v->get_string()) : "unknown";
  }
  // Operation.Path / Operation.From: a string, else the reason it is not one.
  std::optional<std::string> path(std::string& error) const { return text("path", "operation missing path field", error); }
  std::optional<std::string> from(std::string& error) const {
    return text("from", "operation, missing from field", error);
  }
  bool has_value() const {
    const value* v = op_.if_contains("value");
    return v && !v->is_null();
  }
  // An absent "value" adds null, as evanphx adds a nil node.
  value operand() const {
    const value* v = op_.if_contains("value");
    return v ? *v : value(nullptr);
  }

 private:
  std::optional<std::string> text(const char* field, std::string_view missing, std::string& error) const {
    const value* v = op_.if_contains(field);
    if (!v || v->is_null()) {
      error = std::string(missing) + kMissing;
      return std::nullopt;
    }
    if (!v->is_string()) {
      error = "json: cannot unmarshal " + std::string(base::go_json_kind(*v)) + " into Go value of type string";
      return std::nullopt;
    }
    return std::string(v->get_string());
  }

  const object& op_;
};

class Applier {
 public:
  Applier(value document, const JsonPatchLimits& limits) : doc_(std::move(document)), limits_(limits) {}

  value finish() && { return std::move(doc_); }

  void apply(const Operation& op) {
    std::string kind = op.kind();
    if (kind == "add") return add(op);
    if (kind == "remove") return remove(op);
    if (kind == "replace") return replace(op);
    if (kind == "move") return move(op);
    if (kind == "test") return test(op);
    if (kind == "copy") return copy(op);
    fail("Unexpected kind: " + kind);
  }

 private:
  [[noreturn]] static void fail(std::string detail) { detail::throw_unprocessable(std::move(detail)); }
  static void check(const std::string& error, const std::string& context) {
    if (!error.empty()) fail(context + error);
  }

  void add(const Operation& op) {
    std::string error;
    auto path = op.path(error);
    if (!path) fail("add operation failed to decode path" + kMissing);
    auto at = find_object(doc_, *path);
    if (!at) fail("add operation does not apply: doc is missing path: \"" + *path + "\"" + kMissing);
    check(at->container.add(at->key, op.operand()), "error in add for path: '" + *path + "': ");
  }

  void remove(const Operation& op) {
    std::string error;
    auto path = op.path(error);
    if (!path) fail("remove operation failed to decode path" + kMissing);
    auto at = find_object(doc_, *path);
    if (!at) fail("remove operation does not apply: doc is missing path: \"" + *path + "\"" + kMissing);
    check(at->container.remove(at->key), "error in remove for path: '" + *path + "': ");
  }

  void replace(const Operation& op) {
    std::string error;
    auto path = op.path(error);
    if (!path) fail("replace operation failed to decode path: " + error);
    if (path->empty()) {
      value replacement = op.operand();
      if (!replacement.is_object() && !replacement.is_array()) {
        fail("replace operation value must be object or array: %!w(<nil>)");
      }
      doc_ = std::move(replacement);
      return;
    }
    auto at = find_object(doc_, *path);
    if (!at) fail("replace operation does not apply: doc is missing path: " + *path + kMissing);
    value* existing = nullptr;
    if (!at->container.get(at->key, existing).empty()) {
      fail("replace operation does not apply: doc is missing key: " + *path + kMissing);
    }
    // Like evanphx, a missing object member is not an error: replace adds it.
    check(at->container.set(at->key, op.operand()), "error in remove for path: '" + *path + "': ");
  }

  void move(const Operation& op) {
    std::string error;
    auto from = op.from(error);
    if (!from) fail("move operation failed to decode from: " + error);
    auto source = find_object(doc_, *from);
    if (!source) fail("move operation does not apply: doc is missing from path: " + *from + kMissing);
    value* found = nullptr;
    check(source->container.get(source->key, found), "error in move for path: '" + source->key + "': ");
    value moved = found ? std::move(*found) : value(nullptr);
    check(source->container.remove(source->key), "error in move for path: '" + source->key + "': ");
    auto path = op.path(error);
    if (!path) fail("move operation failed to decode path: " + error);
    auto at = find_object(doc_, *path);
    if (!at) fail("move operation does not apply: doc is missing destination path: " + *path + kMissing);
    check(at->container.add(at->key, std::move(moved)), "error in move for path: '" + *path + "': ");
  }

  void test(const Operation& op) {
    std::string error;
    auto path = op.path(error);
    if (!path) fail("test operation failed to decode path: " + error);
    const std::string failed = "testing value " + *path + " failed: test failed";
    if (path->empty()) {
      if (!op.has_value() || !json_equal(doc_, op.operand())) fail(failed);
      return;
    }
    auto at = find_object(doc_, *path);
    if (!at) fail("test operation does not apply: is missing path: " + *path + kMissing);
    value* found = nullptr;
    check(at->container.get(at->key, found), "error in test for path: '" + *path + "': ");
    // Absent and null are one to evanphx: both pass a test for null (or for no value at all).
    if (!found) {
      if (op.has_value()) fail(failed);
      return;
    }
    if (!op.has_value() || !json_equal(*found, op.operand())) fail(failed);
  }

  void copy(const Operation& op) {
    std::string error;
    auto from = op.from(error);
    if (!from) fail("copy operation failed to decode from: " + error);
    auto source = find_object(doc_, *from);
    if (!source) fail("copy operation does not apply: doc is missing from path: " + *from + kMissing);
    value* found = nullptr;
    check(source->container.get(source->key, found), "error in copy for from: '" + *from + "': ");
    auto path = op.path(error);
    if (!path) fail("copy operation failed to decode path" + kMissing);
    auto at = find_object(doc_, *path);
    if (!at) fail("copy operation does not apply: doc is missing destination path: " + *path + kMissing);
    // The bound is on what copies add to the serialized document, as evanphx measures a deep copy.
    value duplicate = found ? *found : value(nullptr);
    copied_bytes_ += found ? static_cast<std::int64_t>(boost::json::serialize(duplicate).size()) : 0;
    if (limits_.max_copy_bytes > 0 && copied_bytes_ > limits_.max_copy_bytes) {
      fail("Unable to complete the copy, the accumulated size increase of copy is " + std::to_string(copied_bytes_) +
           ", exceeding the limit " + std::to_string(limits_.max_copy_bytes));
    }
    check(at->container.add(at->key, std::move(duplicate)), "error while adding value during copy: ");
  }

  value doc_;
  const JsonPatchLimits& limits_;
  std::int64_t copied_bytes_ = 0;
};

// jsonpatch.DecodePatch: a JSON array of objects (null: no operations).
array decode_patch(std::string_view patch_json) {
  std::string error;
  std::optional<value> parsed = detail::parse_json(patch_json, error);
  if (!parsed) detail::throw_bad_request(error);
  if (parsed->is_null()) return {};
  if (!parsed->is_array()) {
    detail::throw_bad_request("json: cannot unmarshal " + std::string(base::go_json_kind(*parsed)) +
                              " into Go value of type jsonpatch.Patch");
  }
  for (const value& op : parsed->get_array()) {
    if (!op.is_object() && !op.is_null()) {
      detail::throw_bad_request("json: cannot unmarshal " + std::string(base::go_json_kind(op)) +
                                " into Go value of type jsonpatch.Operation");
    }
  }
  return std::move(parsed->get_array());
}

}  // namespace

value apply_json_patch(value document, std::string_view patch_json, const JsonPatchLimits& limits) {
  array operations = decode_patch(patch_json);
  if (operations.size() > limits.max_operations) {
    detail::throw_too_large("The allowed maximum operations in a JSON patch is " +
                            std::to_string(limits.max_operations) + ", got " + std::to_string(operations.size()));
  }
  if (!document.is_object() && !document.is_array()) {
    detail::throw_unprocessable("json: cannot unmarshal " + std::string(base::go_json_kind(document)) +
                                " into Go value of type jsonpatch.partialDoc");
  }
  Applier applier(std::move(document), limits);
  const object no_fields;
  for (const value& op : operations) applier.apply(Operation(op.is_object() ? op.get_object() : no_fields));
  return std::move(applier).finish();
}

}  // namespace kapi::patch
