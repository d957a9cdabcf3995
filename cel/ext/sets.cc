// cel-go's sets extension (ext/sets.go, v0.22) and the function behind its two-variable comprehension macros
// (ext/comprehensions.go: cel.@mapInsert), as kube 1.32 enables them.
#include "cel/ext/ext_util.h"
#include "cel/ext/libraries.h"

namespace kapi::cel::ext {
namespace {

bool list_contains(const List& list, const Value& item) {
  for (std::size_t i = 0; i < list.size(); ++i)
    if (equals(list.at(i), item)) return true;
  return false;
}

// Every element of `sub` is in `list`.
bool contains_all(const List& list, const List& sub) {
  for (std::size_t i = 0; i < sub.size(); ++i)
    if (!list_contains(list, sub.at(i))) return false;
  return true;
}

Value sets_contains(std::span<const Value> args) {
  const List *a = args[0].as_list(), *b = args[1].as_list();
  if (!a || !b) return Value::no_such_overload("sets.contains");
  return contains_all(*a, *b);
}

Value sets_equivalent(std::span<const Value> args) {
  const List *a = args[0].as_list(), *b = args[1].as_list();
  if (!a || !b) return Value::no_such_overload("sets.equivalent");
  return contains_all(*a, *b) && contains_all(*b, *a);
}

Value sets_intersects(std::span<const Value> args) {
  const List *a = args[0].as_list(), *b = args[1].as_list();
  if (!a || !b) return Value::no_such_overload("sets.intersects");
  for (std::size_t i = 0; i < a->size(); ++i)
    if (list_contains(*b, a->at(i))) return true;
  return false;
}

// types.InsertMapKeyValue: a copy of the map with one more entry; an existing key is an error.
Value insert(const Map& map, const Value& key, const Value& value) {
  if (map.find(key)) return error_value("insert failed: key " + debug_string(key) + " already exists");
  std::vector<std::pair<Value, Value>> entries;
  entries.reserve(map.size() + 1);
  for (std::size_t i = 0; i < map.size(); ++i) {
    Value k = map.key_at(i);
    Value v = *map.find(k);
    entries.emplace_back(std::move(k), std::move(v));
  }
  entries.emplace_back(key, value);
  return Value::map(std::move(entries));
}

}  // namespace

Library sets_library() {
  const Type list_t = Type::list(Type::type_param("T"));
  Library lib{.name = "cel.lib.ext.sets"};
  lib.functions = {
      Function{"sets.contains",
               {global_overload("list_sets_contains_list", {list_t, list_t}, Type::bool_type(), sets_contains)}},
      Function{"sets.equivalent",
               {global_overload("list_sets_equivalent_list", {list_t, list_t}, Type::bool_type(), sets_equivalent)}},
      Function{"sets.intersects",
               {global_overload("list_sets_intersects_list", {list_t, list_t}, Type::bool_type(), sets_intersects)}},
  };
  return lib;
}

Library two_var_comprehensions_library() {
  const Type k = Type::type_param("K"), v = Type::type_param("V"), map_kv = Type::map(k, v);
  Library lib{.name = "cel.lib.ext.comprev2"};
  lib.functions = {Function{
      "cel.@mapInsert",
      {global_overload("@mapInsert_map_key_value", {map_kv, k, v}, map_kv,
                       [](std::span<const Value> args) -> Value {
                         const Map* map = args[0].as_map();
                         if (!map) return Value::no_such_overload("cel.@mapInsert");
                         return insert(*map, args[1], args[2]);
                       }),
       global_overload("@mapInsert_map_map", {map_kv, map_kv}, map_kv, [](std::span<const Value> args) -> Value {
         const Map *target = args[0].as_map(), *update = args[1].as_map();
         if (!target || !update) return Value::no_such_overload("cel.@mapInsert");
         Value result = args[0];
         for (std::size_t i = 0; i < update->size(); ++i) {
           const Value key = update->key_at(i);
           result = insert(*result.as_map(), key, *update->find(key));
           if (result.is_error()) return result;
         }
         return result;
       })}}};
  // The receiver-style macros of ext.TwoVarComprehensions, by name; the parser expands the three- and four-argument
  // forms (all, exists, existsOne, exists_one with three; transformList, transformMap, transformMapEntry with
  // three or four).
  lib.macros = {"all", "exists", "existsOne", "exists_one", "transformList", "transformMap", "transformMapEntry"};
  return lib;
}

}  // namespace kapi::cel::ext
