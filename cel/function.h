#pragma once
// Functions as an environment declares them (cel-go's decls.FunctionDecl with its overloads) and implements them
// (functions.Overload): one declaration serves the checker (signatures), the cost estimator (by overload id) and
// the interpreter (the implementation), so a library is written in one place.
//
// Contract:
// - An overload id is unique within an environment and spelled as cel-go spells it ("add_int64",
//   "size_string", "string_to_int64", "matches_string"); the cost tables key on it.
// - params include the receiver first when `member` (`"abc".size()` is size_string with params [string]).
// - Type parameters (Type::type_param("A")) make an overload generic: `size(list(A)) -> int`.
// - impl receives the evaluated arguments (receiver first). Unless `non_strict`, the interpreter never calls impl
//   with an error argument: it returns the first error instead. An impl that cannot apply to its arguments'
//   run-time types returns Value::no_such_overload(name). Implementations must be thread-safe (programs are
//   shared between requests); state they keep (a regex cache) is theirs to guard.
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "cel/types.h"
#include "cel/value.h"

namespace kapi::cel {

using FunctionImpl = std::function<Value(std::span<const Value> args)>;

struct Overload {
  std::string id;
  std::vector<Type> params;
  Type result;
  bool member = false;
  bool non_strict = false;
  FunctionImpl impl;  // empty for operators the interpreter evaluates itself (_&&_, _||_, _?_:_, @not_strictly_false)
};

struct Function {
  std::string name;  // "size", "_+_", "matches", "optional.of"
  std::vector<Overload> overloads;
};

struct Variable {
  std::string name;
  Type type;
};

// A set of declarations an environment can take in one piece: the standard library, cel-go's optional types and
// string extensions, kube's libraries (lists, regex, urls, quantity, ip, cidr, format, sets, authz).
struct Library {
  std::string name;
  std::vector<Function> functions;
  std::vector<Variable> variables;
  std::vector<std::string> macros;  // macro names the parser must expand with this library ("optMap", "cel.bind")
  std::vector<Type> types;          // named types the library introduces (identifiers such as `net.IP`)
};

}  // namespace kapi::cel
