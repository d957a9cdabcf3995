#pragma once
// Reading the members of stored RBAC objects: a missing member and one of the wrong type read as Go's zero value.
#include <boost/json.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace kapi::authorization::rbac::fields {

inline std::string string_at(const boost::json::object& object, std::string_view key) {
  const boost::json::value* value = object.if_contains(key);
  return value && value->is_string() ? std::string(value->get_string()) : std::string();
}

inline const boost::json::object& object_at(const boost::json::object& object, std::string_view key) {
  static const boost::json::object empty;
  const boost::json::value* value = object.if_contains(key);
  return value && value->is_object() ? value->get_object() : empty;
}

inline const boost::json::array& array_at(const boost::json::object& object, std::string_view key) {
  static const boost::json::array empty;
  const boost::json::value* value = object.if_contains(key);
  return value && value->is_array() ? value->get_array() : empty;
}

inline std::vector<std::string> strings_at(const boost::json::object& object, std::string_view key) {
  std::vector<std::string> out;
  const boost::json::value* value = object.if_contains(key);
  if (!value || !value->is_array()) return out;
  for (const auto& item : value->get_array())
    if (item.is_string()) out.emplace_back(item.get_string());
  return out;
}

}  // namespace kapi::authorization::rbac::fields
