// fmt's %v of a cel-go ref.Val; numbers as Go formats them (base/go_strconv.h).
#include "cel/stdlib/format.h"

#include "base/go_strconv.h"

namespace kapi::cel {

std::string go_format_value(const Value& value) {
  if (const auto* s = value.get_if<std::string>()) return *s;
  if (const auto* i = value.get_if<std::int64_t>()) return std::to_string(*i);
  if (const auto* u = value.get_if<std::uint64_t>()) return std::to_string(*u);
  if (const auto* d = value.get_if<double>()) return base::go_format_float(*d);
  if (const auto* b = value.get_if<bool>()) return *b ? "true" : "false";
  if (value.is_null()) return "NULL_VALUE";
  if (const auto* bytes = value.get_if<Bytes>()) {
    std::string out = "[";
    for (std::size_t i = 0; i < bytes->data.size(); ++i) {
      if (i > 0) out += ' ';
      out += std::to_string(static_cast<unsigned char>(bytes->data[i]));
    }
    return out + "]";
  }
  if (const auto* e = value.get_if<Error>()) return e->message;
  return debug_string(value);
}

}  // namespace kapi::cel
