#include "server/schema/duplicate_fields.h"

#include <simdjson.h>

#include <algorithm>
#include <unordered_set>

namespace kapi::schema {
namespace {

namespace dom = simdjson::dom;

std::string unknown_message(std::string_view path) { return "unknown field \"" + std::string(path) + "\""; }
std::string duplicate_message(std::string_view path) { return "duplicate field \"" + std::string(path) + "\""; }

// The cheap question first: does any object repeat a key?
bool has_repeated_key(dom::element element) {
  if (element.is_array()) {
    for (dom::element item : dom::array(element))
      if (has_repeated_key(item)) return true;
    return false;
  }
  if (!element.is_object()) return false;
  std::vector<std::string_view> keys;
  for (dom::key_value_pair field : dom::object(element)) {
    keys.push_back(field.key);
    if (has_repeated_key(field.value)) return true;
  }
  std::sort(keys.begin(), keys.end());
  return std::adjacent_find(keys.begin(), keys.end()) != keys.end();
}

class OrderedErrors {
 public:
  explicit OrderedErrors(const std::vector<std::string>& unknown_paths)
      : unknown_(unknown_paths.begin(), unknown_paths.end()) {}

  void walk(dom::element element, const std::string& path) {
    if (element.is_array()) {
      std::size_t index = 0;
      for (dom::element item : dom::array(element)) walk(item, path + "[" + std::to_string(index++) + "]");
      return;
    }
    if (!element.is_object()) return;
    std::unordered_set<std::string_view> seen;
    for (dom::key_value_pair field : dom::object(element)) {
      const std::string child = path.empty() ? std::string(field.key) : path + "." + std::string(field.key);
      if (unknown_.contains(child)) {
        add(unknown_message(child));
        continue;  // Go skips an unknown field's value without looking inside
      }
      if (!seen.insert(field.key).second) add(duplicate_message(child));
      walk(field.value, child);
    }
  }

  std::vector<std::string> take(const std::vector<std::string>& unknown_paths) {
    // Unknown paths the walk did not meet (a path conform() spells differently) still count, after the rest.
    for (const auto& path : unknown_paths) add(unknown_message(path));
    return std::move(errors_);
  }

 private:
  void add(std::string message) {
    if (said_.insert(message).second) errors_.push_back(std::move(message));
  }

  std::unordered_set<std::string> unknown_;
  std::unordered_set<std::string> said_;
  std::vector<std::string> errors_;
};

}  // namespace

std::vector<std::string> strict_decoding_errors(std::string_view json, const std::vector<std::string>& unknown_paths) {
  dom::parser parser;
  dom::element root;
  if (parser.parse(json.data(), json.size()).get(root) != simdjson::SUCCESS || !has_repeated_key(root)) {
    std::vector<std::string> errors;
    errors.reserve(unknown_paths.size());
    for (const auto& path : unknown_paths) errors.push_back(unknown_message(path));
    return errors;
  }
  OrderedErrors ordered(unknown_paths);
  ordered.walk(root, "");
  return ordered.take(unknown_paths);
}

}  // namespace kapi::schema
