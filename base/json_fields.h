#pragma once
// Reading and writing the members of a decoded object, as the core resources' strategies do it everywhere: a
// missing member and a member of the wrong JSON type read the same (nullptr, "", 0, false), as Go's zero values
// do after decoding. Bodies are already conformed to their schema, so a wrong type only comes from stored data.
#include <boost/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kapi::base::fields {

namespace json = boost::json;

inline const json::object* object_at(const json::object& object, std::string_view key) {
  auto it = object.find(key);
  return it != object.end() && it->value().is_object() ? &it->value().as_object() : nullptr;
}

inline json::object* object_at(json::object& object, std::string_view key) {
  auto it = object.find(key);
  return it != object.end() && it->value().is_object() ? &it->value().as_object() : nullptr;
}

inline const json::array* array_at(const json::object& object, std::string_view key) {
  auto it = object.find(key);
  return it != object.end() && it->value().is_array() ? &it->value().as_array() : nullptr;
}

inline json::array* array_at(json::object& object, std::string_view key) {
  auto it = object.find(key);
  return it != object.end() && it->value().is_array() ? &it->value().as_array() : nullptr;
}

inline std::string_view string_at(const json::object& object, std::string_view key) {
  auto it = object.find(key);
  return it != object.end() && it->value().is_string() ? std::string_view(it->value().as_string()) : "";
}

inline std::string_view string_at(const json::object* object, std::string_view key) {
  return object ? string_at(*object, key) : "";
}

// An integer member; std::nullopt when absent or not a number (Go's nil *int).
inline std::optional<std::int64_t> int_at(const json::object& object, std::string_view key) {
  auto it = object.find(key);
  if (it == object.end()) return std::nullopt;
  if (it->value().is_int64()) return it->value().as_int64();
  if (it->value().is_uint64()) return static_cast<std::int64_t>(it->value().as_uint64());
  return std::nullopt;
}

inline std::int64_t int_or_zero(const json::object* object, std::string_view key) {
  return object ? int_at(*object, key).value_or(0) : 0;
}

inline bool bool_at(const json::object* object, std::string_view key) {
  if (!object) return false;
  auto it = object->find(key);
  return it != object->end() && it->value().is_bool() && it->value().as_bool();
}

inline bool has(const json::object& object, std::string_view key) {
  auto it = object.find(key);
  return it != object.end() && !it->value().is_null();
}

// The member as an object, replacing a missing or non-object member with {}.
inline json::object& ensure_object(json::object& object, std::string_view key) {
  auto& value = object[key];
  if (!value.is_object()) value = json::object();
  return value.as_object();
}

// The objects of an array member (non-objects skipped), for range-for.
template <typename Fn>
void for_each_object(const json::object* object, std::string_view key, Fn&& fn) {
  if (!object) return;
  const json::array* items = array_at(*object, key);
  if (!items) return;
  for (std::size_t i = 0; i < items->size(); ++i)
    if ((*items)[i].is_object()) fn((*items)[i].as_object(), i);
}

template <typename Fn>
void for_each_object(json::object* object, std::string_view key, Fn&& fn) {
  if (!object) return;
  json::array* items = array_at(*object, key);
  if (!items) return;
  for (std::size_t i = 0; i < items->size(); ++i)
    if ((*items)[i].is_object()) fn((*items)[i].as_object(), i);
}

// kube's code defaulters test a string against "" (`if obj.RestartPolicy == "" {...}`), and a protobuf body
// carries every string, empty or not: an empty string takes the default as a missing one does.
inline void default_string(json::object& object, std::string_view key, std::string_view value) {
  auto it = object.find(key);
  if (it == object.end() || it->value().is_null() || (it->value().is_string() && it->value().as_string().empty()))
    object[key] = value;
}

// The stored status, whatever a main-resource write sent (status changes through its subresource).
inline void keep_status(json::object& object, const json::object& old) {
  if (auto it = old.find("status"); it != old.end()) object["status"] = it->value();
  else object.erase("status");
}

// Go's %#v of a []string, as field errors print a list value: []string{"a", "b"}.
inline std::string go_string_slice(const json::array* values) {
  std::string out = "[]string{";
  if (values) {
    bool first = true;
    for (const auto& value : *values) {
      if (!first) out += ", ";
      first = false;
      out += '"';
      if (value.is_string()) out += value.as_string();
      out += '"';
    }
  }
  return out + "}";
}

}  // namespace kapi::base::fields
