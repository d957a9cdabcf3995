// The converters of smd's merge tests, which stand for conversions between versions on the tests' schemas.
#include "tests/unit/server/structured_merge/update_test_schemas.h"

#include <boost/json/object.hpp>

#include <algorithm>
#include <stdexcept>
#include <string_view>
#include <vector>

namespace kapi::structured_merge::testing {
namespace {

// Every member name ending in `old_suffix` ends in `new_suffix` instead, at any depth.
boost::json::value rename_fields(const boost::json::value& value, std::string_view old_suffix,
                                 std::string_view new_suffix) {
  if (value.is_object()) {
    boost::json::object renamed;
    for (const auto& [key, member] : value.get_object()) {
      std::string name(key);
      if (name.ends_with(old_suffix)) name = name.substr(0, name.size() - old_suffix.size()) + std::string(new_suffix);
      renamed[name] = rename_fields(member, old_suffix, new_suffix);
    }
    return renamed;
  }
  if (value.is_array()) {
    boost::json::array renamed;
    for (const auto& item : value.get_array()) renamed.push_back(rename_fields(item, old_suffix, new_suffix));
    return renamed;
  }
  return value;
}

// The nested keys as repeatingConverter's YAML lines have them: "a: ..." becomes "aaa:", a line of its own whose
// value is null unless nested lines follow. yaml.Marshal writes the keys sorted, and of two that become one ("a"
// and "aa" at v1), the later line wins.
boost::json::value repeat_keys(const boost::json::object& members, int times) {
  std::vector<const boost::json::key_value_pair*> sorted;
  for (const auto& member : members) sorted.push_back(&member);
  std::sort(sorted.begin(), sorted.end(), [](const auto* lhs, const auto* rhs) { return lhs->key() < rhs->key(); });
  boost::json::object repeated;
  for (const boost::json::key_value_pair* entry : sorted) {
    std::string_view key = entry->key();
    const boost::json::value& member = entry->value();
    std::string name(static_cast<std::size_t>(times), key.empty() ? ' ' : key.front());
    bool nested = member.is_object() && !member.get_object().empty();
    repeated[name] = nested ? repeat_keys(member.get_object(), times) : boost::json::value();
  }
  return repeated;
}

}  // namespace

TypedValue RenamingConverter::convert(const TypedValue& object, const std::string& api_version) const {
  const std::string& version = object.type->name;
  return as_typed(rename_fields(object.value, version, api_version), parser_.schema(), parser_.type(api_version));
}

TypedValue RepeatingConverter::convert(const TypedValue& object, const std::string& api_version) const {
  bool numbered = api_version.size() >= 2 && api_version.size() < 8 && api_version.front() == 'v' &&
                  std::all_of(api_version.begin() + 1, api_version.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (!numbered) throw MissingVersion("cannot convert to invalid version");
  int times = std::stoi(api_version.substr(1));
  boost::json::value converted = object.value;
  // yaml.Marshal sorts the members; the converter stops at the second top-level line.
  if (object.value.is_object() && !object.value.get_object().empty()) {
    const boost::json::object& members = object.value.get_object();
    auto first = std::min_element(members.begin(), members.end(),
                                  [](const auto& lhs, const auto& rhs) { return lhs.key() < rhs.key(); });
    const boost::json::value& member = first->value();
    bool nested = member.is_object() && !member.get_object().empty();
    converted = boost::json::object{{first->key(), nested ? repeat_keys(member.get_object(), times) : member}};
  }
  return as_typed(std::move(converted), parser_.schema(), parser_.type(api_version));
}

TypedValue SpecificVersionConverter::convert(const TypedValue& object, const std::string& api_version) const {
  if (std::find(accepted_.begin(), accepted_.end(), api_version) == accepted_.end()) {
    throw MissingVersion("Unknown version: " + api_version);
  }
  return object;
}

TypedValue ReliantFieldsConverter::convert(const TypedValue& object, const std::string& api_version) const {
  std::string from_version = object.type->name == v1_type_ ? "v1" : object.type->name == v2_type_ ? "v2" : "";
  if (from_version.empty()) throw std::runtime_error("invalid typename: " + object.type->name);
  if (from_version == api_version) return object;
  if (api_version == "v1") {
    if (!object.value.is_object() || !object.value.get_object().contains("required_field_bar")) {
      throw std::runtime_error("missing requried field bar");
    }
    return as_typed(rename_fields(object.value, "required_field_bar", "field_foo_rely_on_bar"), parser_.schema(),
                    parser_.schema().find(v1_type_));
  }
  if (api_version == "v2") {
    return as_typed(rename_fields(object.value, "field_foo_rely_on_bar", "required_field_bar"), parser_.schema(),
                    parser_.schema().find(v2_type_));
  }
  throw MissingVersion("cannot convert to invalid version");
}

}  // namespace kapi::structured_merge::testing
