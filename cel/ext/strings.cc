// cel-go's string extension (ext/strings.go, v0.22) at ext.StringsVersion(2), the version kube 1.32 enables:
// indices count code points (Go's []rune), split and replace follow Go's strings package, trim follows
// strings.TrimSpace. format and strings.quote are in strings_format.cc.
#include <algorithm>

#include "base/utf8.h"
#include "cel/ext/ext_util.h"
#include "cel/ext/libraries.h"
#include "cel/ext/strings_format.h"

namespace kapi::cel::ext {
namespace {

std::string index_error(std::int64_t index) { return "index out of range: " + std::to_string(index); }

const std::string& str(const Value& v) { return v.get<std::string>(); }
std::int64_t integer(const Value& v) { return v.get<std::int64_t>(); }

Value char_at(std::span<const Value> args) {
  const std::u32string runes = to_runes(str(args[0]));
  const std::int64_t i = integer(args[1]);
  if (i < 0 || i > static_cast<std::int64_t>(runes.size())) return error_value(index_error(i));
  if (i == static_cast<std::int64_t>(runes.size())) return std::string();
  return from_runes(std::u32string_view(&runes[static_cast<std::size_t>(i)], 1));
}

Value index_of_offset(const std::string& text, const std::string& sub, std::int64_t offset) {
  if (sub.empty()) return offset;
  const std::u32string runes = to_runes(text), sub_runes = to_runes(sub);
  if (offset < 0) return error_value(index_error(offset));
  const std::int64_t n = static_cast<std::int64_t>(runes.size()), m = static_cast<std::int64_t>(sub_runes.size());
  if (offset >= n) return std::int64_t{-1};
  for (std::int64_t i = offset; i < n - (m - 1); ++i)
    if (std::equal(sub_runes.begin(), sub_runes.end(), runes.begin() + i)) return i;
  return std::int64_t{-1};
}

Value last_index_of_offset(const std::string& text, const std::string& sub, std::int64_t offset) {
  if (sub.empty()) return offset;
  const std::u32string runes = to_runes(text), sub_runes = to_runes(sub);
  if (offset < 0) return error_value(index_error(offset));
  const std::int64_t n = static_cast<std::int64_t>(runes.size()), m = static_cast<std::int64_t>(sub_runes.size());
  if (offset >= n) return std::int64_t{-1};
  std::int64_t start = std::min(offset, n - m);
  for (std::int64_t i = start; i >= 0; --i)
    if (std::equal(sub_runes.begin(), sub_runes.end(), runes.begin() + i)) return i;
  return std::int64_t{-1};
}

Value map_ascii(const std::string& text, int (*convert)(int)) {
  std::u32string runes = to_runes(text);
  for (char32_t& r : runes)
    if (r <= 0x7f) r = static_cast<char32_t>(convert(static_cast<int>(r)));
  return from_runes(runes);
}

// strings.Replace: an empty `old` matches before each code point and at the end.
std::string go_replace(const std::string& s, const std::string& old, const std::string& replacement,
                       std::int64_t n) {
  if (old == replacement || n == 0) return s;
  std::int64_t count = 0;
  if (old.empty()) {
    count = static_cast<std::int64_t>(to_runes(s).size()) + 1;
  } else {
    for (std::size_t at = s.find(old); at != std::string::npos; at = s.find(old, at + old.size())) ++count;
  }
  if (count == 0) return s;
  if (n < 0 || count < n) n = count;
  std::string out;
  std::size_t start = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    std::size_t j = start;
    if (old.empty()) {
      if (i > 0) j += base::decode_rune(std::string_view(s).substr(start)).width;
    } else {
      j = s.find(old, start);
    }
    out.append(s, start, j - start);
    out += replacement;
    start = j + old.size();
  }
  out.append(s, start, std::string::npos);
  return out;
}

// strings.SplitN (n < 0: all): an empty separator splits into UTF-8 sequences.
std::vector<std::string> go_split(std::string_view s, std::string_view sep, std::int64_t n) {
  std::vector<std::string> out;
  if (n == 0) return out;
  if (sep.empty()) {
    while (!s.empty()) {
      if (n > 0 && static_cast<std::int64_t>(out.size()) == n - 1) {
        out.emplace_back(s);
        break;
      }
      const std::size_t width = base::decode_rune(s).width;
      out.emplace_back(s.substr(0, width));
      s.remove_prefix(width);
    }
    return out;
  }
  while (n < 0 || static_cast<std::int64_t>(out.size()) < n - 1) {
    const std::size_t at = s.find(sep);
    if (at == std::string_view::npos) break;
    out.emplace_back(s.substr(0, at));
    s.remove_prefix(at + sep.size());
  }
  out.emplace_back(s);
  return out;
}

Value substring_range(const std::string& text, std::int64_t start, std::int64_t end) {
  const std::u32string runes = to_runes(text);
  const std::int64_t n = static_cast<std::int64_t>(runes.size());
  if (start > end)
    return error_value("invalid substring range. start: " + std::to_string(start) + ", end: " + std::to_string(end));
  if (start < 0 || start > n) return error_value(index_error(start));
  if (end < 0 || end > n) return error_value(index_error(end));
  return from_runes(std::u32string_view(runes).substr(static_cast<std::size_t>(start),
                                                      static_cast<std::size_t>(end - start)));
}

// unicode.IsSpace.
bool is_go_space(char32_t r) {
  switch (r) {
    case '\t': case '\n': case '\v': case '\f': case '\r': case ' ': case 0x85: case 0xA0: case 0x1680:
    case 0x2028: case 0x2029: case 0x202F: case 0x205F: case 0x3000:
      return true;
    default:
      return r >= 0x2000 && r <= 0x200A;
  }
}

// strings.TrimSpace, on the bytes: malformed bytes are never space and stay as they are.
std::string trim_space(std::string_view s) {
  while (!s.empty()) {
    const base::Rune r = base::decode_rune(s);
    if (!r.valid || !is_go_space(r.value)) break;
    s.remove_prefix(r.width);
  }
  while (!s.empty()) {
    // Step back to the start of the last UTF-8 sequence.
    std::size_t start = s.size() - 1;
    while (start > 0 && s.size() - start < 4 && (static_cast<unsigned char>(s[start]) & 0xC0) == 0x80) --start;
    const base::Rune r = base::decode_rune(s.substr(start));
    if (!r.valid || r.width != s.size() - start || !is_go_space(r.value)) break;
    s.remove_suffix(r.width);
  }
  return std::string(s);
}

Value join(const Value& list_value, const std::string& separator) {
  const List* list = list_value.as_list();
  if (!list) return Value::no_such_overload("join");
  std::string out;
  for (std::size_t i = 0; i < list->size(); ++i) {
    if (i != 0) out += separator;
    const Value item = list->at(i);
    const auto* s = item.get_if<std::string>();
    if (!s) return error_value("join: invalid input: " + debug_string(item));
    out += *s;
  }
  return out;
}

}  // namespace

Library strings_library() {
  const Type s = Type::string_type(), i = Type::int_type(), list_of_strings = Type::list(Type::string_type());
  Library lib{.name = "cel.lib.ext.strings"};
  lib.functions = {
      Function{"charAt", {member_overload("string_char_at_int", {s, i}, s, char_at)}},
      Function{"indexOf",
               {member_overload("string_index_of_string", {s, s}, i,
                                [](auto args) { return index_of_offset(str(args[0]), str(args[1]), 0); }),
                member_overload("string_index_of_string_int", {s, s, i}, i, [](auto args) {
                  return index_of_offset(str(args[0]), str(args[1]), integer(args[2]));
                })}},
      Function{"lastIndexOf",
               {member_overload("string_last_index_of_string", {s, s}, i,
                                [](auto args) -> Value {
                                  const std::string& sub = str(args[1]);
                                  const auto n = static_cast<std::int64_t>(to_runes(str(args[0])).size());
                                  if (sub.empty()) return n;
                                  return last_index_of_offset(str(args[0]), sub, n - 1);
                                }),
                member_overload("string_last_index_of_string_int", {s, s, i}, i, [](auto args) {
                  return last_index_of_offset(str(args[0]), str(args[1]), integer(args[2]));
                })}},
      Function{"lowerAscii", {member_overload("string_lower_ascii", {s}, s, [](auto args) {
                 return map_ascii(str(args[0]), [](int c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; });
               })}},
      Function{"upperAscii", {member_overload("string_upper_ascii", {s}, s, [](auto args) {
                 return map_ascii(str(args[0]), [](int c) { return c >= 'a' && c <= 'z' ? c - 32 : c; });
               })}},
      Function{"replace",
               {member_overload("string_replace_string_string", {s, s, s}, s,
                                [](auto args) -> Value {
                                  return go_replace(str(args[0]), str(args[1]), str(args[2]), -1);
                                }),
                member_overload("string_replace_string_string_int", {s, s, s, i}, s, [](auto args) -> Value {
                  return go_replace(str(args[0]), str(args[1]), str(args[2]), integer(args[3]));
                })}},
      Function{"split",
               {member_overload("string_split_string", {s, s}, list_of_strings,
                                [](auto args) { return string_list(go_split(str(args[0]), str(args[1]), -1)); }),
                member_overload("string_split_string_int", {s, s, i}, list_of_strings, [](auto args) {
                  return string_list(go_split(str(args[0]), str(args[1]), integer(args[2])));
                })}},
      Function{"substring",
               {member_overload("string_substring_int", {s, i}, s,
                                [](auto args) -> Value {
                                  const std::u32string runes = to_runes(str(args[0]));
                                  const std::int64_t start = integer(args[1]);
                                  if (start < 0 || start > static_cast<std::int64_t>(runes.size()))
                                    return error_value(index_error(start));
                                  return from_runes(std::u32string_view(runes).substr(static_cast<std::size_t>(start)));
                                }),
                member_overload("string_substring_int_int", {s, i, i}, s, [](auto args) {
                  return substring_range(str(args[0]), integer(args[1]), integer(args[2]));
                })}},
      Function{"trim", {member_overload("string_trim", {s}, s, [](auto args) -> Value {
                 return trim_space(str(args[0]));
               })}},
      Function{"join",
               {member_overload("list_join", {list_of_strings}, s, [](auto args) { return join(args[0], ""); }),
                member_overload("list_join_string", {list_of_strings, s}, s,
                                [](auto args) { return join(args[0], str(args[1])); })}},
      Function{"format", {member_overload("string_format", {s, Type::list(Type::dyn())}, s, string_format)}},
      Function{"strings.quote", {global_overload("strings_quote", {s}, s, [](auto args) -> Value {
                 return quote_string(str(args[0]));
               })}},
  };
  return lib;
}

}  // namespace kapi::cel::ext
