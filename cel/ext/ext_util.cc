// Shared helpers of the extension libraries (cel-go common/types comparisons, Go's []rune conversion).
#include "cel/ext/ext_util.h"

#include <cmath>

#include "base/utf8.h"

namespace kapi::cel::ext {
namespace {

template <typename T>
int three_way(const T& a, const T& b) {
  return a < b ? -1 : (b < a ? 1 : 0);
}

// int/uint/double compare by value across types, as cel-go does with cross-type numeric comparisons on.
std::optional<int> compare_numbers(const Value& a, const Value& b) {
  if (a.is<std::int64_t>() && b.is<std::int64_t>()) return three_way(a.get<std::int64_t>(), b.get<std::int64_t>());
  if (a.is<std::uint64_t>() && b.is<std::uint64_t>())
    return three_way(a.get<std::uint64_t>(), b.get<std::uint64_t>());
  if (a.is<std::int64_t>() && b.is<std::uint64_t>()) {
    const std::int64_t i = a.get<std::int64_t>();
    return i < 0 ? -1 : three_way(static_cast<std::uint64_t>(i), b.get<std::uint64_t>());
  }
  if (a.is<std::uint64_t>() && b.is<std::int64_t>()) {
    auto reversed = compare_numbers(b, a);
    return reversed ? std::optional<int>(-*reversed) : std::nullopt;
  }
  auto as_double = [](const Value& v) -> std::optional<double> {
    if (auto d = v.get_if<double>()) return *d;
    if (auto i = v.get_if<std::int64_t>()) return static_cast<double>(*i);
    if (auto u = v.get_if<std::uint64_t>()) return static_cast<double>(*u);
    return std::nullopt;
  };
  auto x = as_double(a), y = as_double(b);
  if (!x || !y) return std::nullopt;
  if (std::isnan(*x) || std::isnan(*y)) return std::nullopt;
  return three_way(*x, *y);
}

}  // namespace

Overload member_overload(std::string id, std::vector<Type> params, Type result, FunctionImpl impl) {
  return Overload{std::move(id), std::move(params), std::move(result), true, false, std::move(impl)};
}

Overload global_overload(std::string id, std::vector<Type> params, Type result, FunctionImpl impl) {
  return Overload{std::move(id), std::move(params), std::move(result), false, false, std::move(impl)};
}

Value error_value(std::string message) { return Value::error(ErrorCode::kGeneric, std::move(message)); }

Value string_list(std::vector<std::string> items) {
  std::vector<Value> values;
  values.reserve(items.size());
  for (std::string& item : items) values.emplace_back(std::move(item));
  return Value::list(std::move(values));
}

std::optional<int> compare_values(const Value& a, const Value& b) {
  if (auto n = compare_numbers(a, b)) return n;
  if (a.is<bool>() && b.is<bool>()) return three_way(a.get<bool>(), b.get<bool>());
  if (a.is<std::string>() && b.is<std::string>()) {
    const int c = a.get<std::string>().compare(b.get<std::string>());
    return c < 0 ? -1 : (c > 0 ? 1 : 0);
  }
  if (a.is<Bytes>() && b.is<Bytes>()) {
    const int c = a.get<Bytes>().data.compare(b.get<Bytes>().data);
    return c < 0 ? -1 : (c > 0 ? 1 : 0);
  }
  if (a.is<Timestamp>() && b.is<Timestamp>()) return three_way(a.get<Timestamp>(), b.get<Timestamp>());
  if (a.is<Duration>() && b.is<Duration>()) return three_way(a.get<Duration>(), b.get<Duration>());
  return std::nullopt;
}

std::u32string to_runes(std::string_view text) {
  std::u32string runes;
  runes.reserve(text.size());
  while (!text.empty()) {
    const base::Rune rune = base::decode_rune(text);
    runes.push_back(rune.value);
    text.remove_prefix(rune.width);
  }
  return runes;
}

std::string from_runes(std::u32string_view runes) {
  std::string out;
  out.reserve(runes.size());
  for (char32_t rune : runes) base::append_utf8(out, rune);
  return out;
}

}  // namespace kapi::cel::ext
