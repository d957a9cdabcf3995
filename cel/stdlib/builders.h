#pragma once
// Small helpers the standard library's parts use to declare overloads next to their implementations (cel-go's
// decls.Overload / decls.MemberOverload with UnaryBinding / BinaryBinding).
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "cel/function.h"

namespace kapi::cel::stdlib {

inline Overload global(std::string id, std::vector<Type> params, Type result, FunctionImpl impl = {}) {
  return Overload{std::move(id), std::move(params), std::move(result), false, false, std::move(impl)};
}

inline Overload member(std::string id, std::vector<Type> params, Type result, FunctionImpl impl = {}) {
  return Overload{std::move(id), std::move(params), std::move(result), true, false, std::move(impl)};
}

inline Value error(ErrorCode code, std::string message) { return Value::error(code, std::move(message)); }
inline Value overflow() { return Value::error(ErrorCode::kOverflow, "integer overflow"); }
inline Value uint_overflow() { return Value::error(ErrorCode::kOverflow, "unsigned integer overflow"); }
inline Value bare_no_such_overload() { return Value::error(ErrorCode::kNoSuchOverload, "no such overload"); }

inline Type type_param_a() { return Type::type_param("A"); }
inline Type type_param_b() { return Type::type_param("B"); }
inline Type list_of_a() { return Type::list(type_param_a()); }
inline Type map_of_ab() { return Type::map(type_param_a(), type_param_b()); }

// The parts of the standard library, each a list of functions (declarations with implementations).
std::vector<Function> logic_functions();
std::vector<Function> arithmetic_functions();
std::vector<Function> comparison_functions();
std::vector<Function> container_functions();
std::vector<Function> string_functions();
std::vector<Function> conversion_functions();
std::vector<Function> time_functions();
std::vector<Function> optional_functions();

}  // namespace kapi::cel::stdlib
