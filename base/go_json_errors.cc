#include "base/go_json_errors.h"

#include <boost/json.hpp>

#include <array>
#include <charconv>

namespace kapi::base {

std::string_view go_json_kind(const boost::json::value& value) {
  switch (value.kind()) {
    case boost::json::kind::string: return "string";
    case boost::json::kind::bool_: return "bool";
    case boost::json::kind::array: return "array";
    case boost::json::kind::object: return "object";
    case boost::json::kind::null: return "null";
    default: return "number";
  }
}

std::string go_number_literal(const boost::json::value& value) {
  if (!value.is_double()) return boost::json::serialize(value);
  std::array<char, 32> buffer{};
  const auto [end, ec] = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value.get_double());
  return ec == std::errc() ? std::string(buffer.data(), end) : boost::json::serialize(value);
}

std::string GoUnmarshalTypeError::message() const {
  if (owner.empty() && field.empty()) return "json: cannot unmarshal " + value + " into Go value of type " + type;
  return "json: cannot unmarshal " + value + " into Go struct field " + owner + "." + field + " of type " + type;
}

}  // namespace kapi::base
