#pragma once
// Declarations (no implementations) of the part of cel-go's standard library (common/stdlib/standard.go) and
// optional library (cel/library.go) that checker_test.go's cases use, so the checker's tests do not depend on the
// stdlib helper's branch. Overload ids and signatures as cel-go spells them.
#include <string>
#include <vector>

#include "cel/env.h"

namespace kapi::cel::testing {

inline Env mini_std_env() {
  const Type A = Type::type_param("A");
  const Type B = Type::type_param("B");
  const Type V = Type::type_param("V");
  const Type K = Type::type_param("K");
  const Type b = Type::bool_type(), i = Type::int_type(), u = Type::uint_type(), d = Type::double_type(),
             s = Type::string_type(), by = Type::bytes_type(), ts = Type::timestamp(), du = Type::duration();
  Env env;
  auto fn = [&](std::string name, std::vector<Overload> overloads) { env.add_function({std::move(name), overloads}); };
  auto o = [](std::string id, std::vector<Type> params, Type result) {
    return Overload{.id = std::move(id), .params = std::move(params), .result = std::move(result)};
  };
  auto m = [](std::string id, std::vector<Type> params, Type result) {
    return Overload{.id = std::move(id), .params = std::move(params), .result = std::move(result), .member = true};
  };
  fn("_?_:_", {o("conditional", {b, A, A}, A)});
  fn("_&&_", {o("logical_and", {b, b}, b)});
  fn("_||_", {o("logical_or", {b, b}, b)});
  fn("!_", {o("logical_not", {b}, b)});
  fn("@not_strictly_false", {o("not_strictly_false", {b}, b)});
  fn("_==_", {o("equals", {A, A}, b)});
  fn("_!=_", {o("not_equals", {A, A}, b)});
  fn("_+_", {o("add_bytes", {by, by}, by), o("add_double", {d, d}, d), o("add_duration_duration", {du, du}, du),
             o("add_duration_timestamp", {du, ts}, ts), o("add_timestamp_duration", {ts, du}, ts),
             o("add_int64", {i, i}, i), o("add_list", {Type::list(A), Type::list(A)}, Type::list(A)),
             o("add_string", {s, s}, s), o("add_uint64", {u, u}, u)});
  fn("_/_", {o("divide_double", {d, d}, d), o("divide_int64", {i, i}, i), o("divide_uint64", {u, u}, u)});
  fn("_%_", {o("modulo_int64", {i, i}, i), o("modulo_uint64", {u, u}, u)});
  fn("_*_", {o("multiply_double", {d, d}, d), o("multiply_int64", {i, i}, i), o("multiply_uint64", {u, u}, u)});
  fn("-_", {o("negate_double", {d}, d), o("negate_int64", {i}, i)});
  fn("_-_", {o("subtract_double", {d, d}, d), o("subtract_duration_duration", {du, du}, du),
             o("subtract_int64", {i, i}, i), o("subtract_timestamp_duration", {ts, du}, ts),
             o("subtract_timestamp_timestamp", {ts, ts}, du), o("subtract_uint64", {u, u}, u)});
  for (auto [op, prefix] : {std::pair{"_<_", "less"}, std::pair{"_<=_", "less_equals"}, std::pair{"_>_", "greater"},
                            std::pair{"_>=_", "greater_equals"}}) {
    std::string p(prefix);
    fn(op, {o(p + "_bool", {b, b}, b), o(p + "_int64", {i, i}, b), o(p + "_int64_double", {i, d}, b),
            o(p + "_int64_uint64", {i, u}, b), o(p + "_uint64", {u, u}, b), o(p + "_uint64_double", {u, d}, b),
            o(p + "_uint64_int64", {u, i}, b), o(p + "_double", {d, d}, b), o(p + "_double_int64", {d, i}, b),
            o(p + "_double_uint64", {d, u}, b), o(p + "_string", {s, s}, b), o(p + "_bytes", {by, by}, b),
            o(p + "_timestamp", {ts, ts}, b), o(p + "_duration", {du, du}, b)});
  }
  fn("_[_]", {o("index_list", {Type::list(A), i}, A), o("index_map", {Type::map(A, B), A}, B)});
  fn("_[_]", {o("optional_list_index_int", {Type::optional(Type::list(V)), i}, Type::optional(V)),
              o("optional_map_index_value", {Type::optional(Type::map(K, V)), K}, Type::optional(V))});
  fn("@in", {o("in_list", {A, Type::list(A)}, b), o("in_map", {A, Type::map(A, B)}, b)});
  fn("size", {o("size_bytes", {by}, i), m("bytes_size", {by}, i), o("size_list", {Type::list(A)}, i),
              m("list_size", {Type::list(A)}, i), o("size_map", {Type::map(A, B)}, i),
              m("map_size", {Type::map(A, B)}, i), o("size_string", {s}, i), m("string_size", {s}, i)});
  fn("type", {o("type", {A}, Type::type_of(A))});
  fn("bool", {o("bool_to_bool", {b}, b), o("string_to_bool", {s}, b)});
  fn("double", {o("double_to_double", {d}, d), o("int64_to_double", {i}, d), o("string_to_double", {s}, d),
                o("uint64_to_double", {u}, d)});
  fn("duration", {o("duration_to_duration", {du}, du), o("int64_to_duration", {i}, du),
                  o("string_to_duration", {s}, du)});
  fn("dyn", {o("to_dyn", {A}, Type::dyn())});
  fn("int", {o("int64_to_int64", {i}, i), o("double_to_int64", {d}, i), o("duration_to_int64", {du}, i),
             o("string_to_int64", {s}, i), o("timestamp_to_int64", {ts}, i), o("uint64_to_int64", {u}, i)});
  fn("string", {o("string_to_string", {s}, s), o("bool_to_string", {b}, s), o("int64_to_string", {i}, s),
                o("uint64_to_string", {u}, s), o("double_to_string", {d}, s)});
  fn("timestamp", {o("timestamp_to_timestamp", {ts}, ts), o("int64_to_timestamp", {i}, ts),
                   o("string_to_timestamp", {s}, ts)});
  fn("uint", {o("uint64_to_uint64", {u}, u), o("double_to_uint64", {d}, u), o("int64_to_uint64", {i}, u),
              o("string_to_uint64", {s}, u)});
  fn("contains", {m("contains_string", {s, s}, b)});
  fn("matches", {o("matches", {s, s}, b), m("matches_string", {s, s}, b)});
  // cel.OptionalTypes
  const Type opt_v = Type::optional(V);
  fn("optional.of", {o("optional_of", {V}, opt_v)});
  fn("optional.ofNonZeroValue", {o("optional_ofNonZeroValue", {V}, opt_v)});
  fn("optional.none", {o("optional_none", {}, opt_v)});
  fn("value", {m("optional_value", {opt_v}, V)});
  fn("hasValue", {m("optional_hasValue", {opt_v}, b)});
  fn("or", {m("optional_or_optional", {opt_v, opt_v}, opt_v)});
  fn("orValue", {m("optional_orValue_value", {opt_v, V}, V)});
  fn("_[?_]", {o("map_optindex_optional_value", {Type::map(K, V), K}, opt_v),
               o("optional_map_optindex_optional_value", {Type::optional(Type::map(K, V)), K}, opt_v),
               o("list_optindex_optional_int", {Type::list(V), i}, opt_v),
               o("optional_list_optindex_optional_int", {Type::optional(Type::list(V)), i}, opt_v)});
  return env;
}

}  // namespace kapi::cel::testing
