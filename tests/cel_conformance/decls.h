#pragma once
// cel-spec's declarations (cel.expr.Decl, cel.expr.Type from checked.proto) as kapi's Env and Type, the way cel-go's
// cel.ProtoAsDeclaration turns a test's type_env into environment options.
#include <stdexcept>

#include "cel/env.h"
#include "cel/expr/checked.pb.h"
#include "cel/types.h"

namespace kapi::cel::conformance {

// A type or value the runner cannot express in kapi's terms (applicability filters these out first, so meeting
// one is the runner's mistake, reported as a failure).
class Unsupported : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

Type to_cel_type(const ::cel::expr::Type& type);  // throws Unsupported for message, wrapper and Any types
void declare(Env& env, const ::cel::expr::Decl& decl);  // a variable, or a function's overloads without impl

}  // namespace kapi::cel::conformance
