// size(), `in` and indexing of cel-go's standard library (common/stdlib/standard.go, with Sizer and Container in
// common/types): a string's size counts code points (an invalid UTF-8 byte counts as one, as Go's
// utf8.RuneCountInString does), membership uses CEL's heterogeneous equality. Indexing is the interpreter's.
#include "base/utf8.h"
#include "cel/stdlib/builders.h"

namespace kapi::cel::stdlib {
namespace {

std::int64_t code_points(std::string_view text) {
  std::int64_t count = 0;
  while (!text.empty()) {
    text.remove_prefix(base::decode_rune(text).width);
    ++count;
  }
  return count;
}

Value size_of(std::span<const Value> args) {
  const Value& v = args[0];
  if (const auto* s = v.get_if<std::string>()) return Value(code_points(*s));
  if (const auto* b = v.get_if<Bytes>()) return Value(static_cast<std::int64_t>(b->data.size()));
  if (const List* l = v.as_list()) return Value(static_cast<std::int64_t>(l->size()));
  if (const Map* m = v.as_map()) return Value(static_cast<std::int64_t>(m->size()));
  return bare_no_such_overload();
}

}  // namespace

std::vector<Function> container_functions() {
  const Type i = Type::int_type(), b = Type::bool_type(), a = type_param_a();
  std::vector<Function> out;
  out.push_back({"size",
                 {global("size_bytes", {Type::bytes_type()}, i, size_of),
                  member("bytes_size", {Type::bytes_type()}, i, size_of),
                  global("size_list", {list_of_a()}, i, size_of), member("list_size", {list_of_a()}, i, size_of),
                  global("size_map", {map_of_ab()}, i, size_of), member("map_size", {map_of_ab()}, i, size_of),
                  global("size_string", {Type::string_type()}, i, size_of),
                  member("string_size", {Type::string_type()}, i, size_of)}});
  out.push_back({"@in",
                 {global("in_list", {a, list_of_a()}, b,
                         [](std::span<const Value> args) {
                           const List& list = *args[1].as_list();
                           for (std::size_t k = 0; k < list.size(); ++k) {
                             if (equals(args[0], list.at(k))) return Value(true);
                           }
                           return Value(false);
                         }),
                  global("in_map", {a, map_of_ab()}, b, [](std::span<const Value> args) {
                    return Value(args[1].as_map()->find(args[0]).has_value());
                  })}});
  out.push_back({"_[_]",
                 {global("index_list", {list_of_a(), i}, a), global("index_map", {map_of_ab(), a}, type_param_b())}});
  return out;
}

}  // namespace kapi::cel::stdlib
