#pragma once
// The interpreter's planned form of an expression, after cel-go's interpreter/planner.go: each AST node becomes a
// Node once per Program, with identifiers resolved (checked ASTs) or turned into candidate name lists (unchecked),
// calls narrowed to the overloads that may apply, and selections and indexes kept as attribute chains so errors
// and run-time costs follow cel-go's attribute model (attributes.go).
#include <cstdint>
#include <string>
#include <vector>

#include "cel/ast.h"
#include "cel/cost.h"
#include "cel/env.h"
#include "cel/function.h"
#include "cel/value.h"

namespace kapi::cel::interp {

enum class NodeKind {
  kConst,             // value
  kIdent,             // name: a variable (activation or comprehension scope)
  kQualifiedIdent,    // unchecked `a.b.c`: names = {"a", "b", "c"}; the longest declared prefix wins at run time
  kSelect,            // children[0].name; optional_access for `_?._`; test_only for has()
  kIndex,             // children[0][children[1]]; optional_access for `_[?_]`
  kCall,              // name(children...), overloads narrowed at plan time
  kAnd,               // children: terms
  kOr,
  kConditional,       // children: condition, truthy, falsy
  kNotStrictlyFalse,  // children[0]
  kEquals,            // children: lhs, rhs
  kNotEquals,
  kList,              // children: elements; optional_entries: `?x` positions
  kMap,               // children: key0, value0, key1, value1 ...; optional_entries per entry
  kFold,              // children: range, init, condition, step, result
  kOptionalOr,        // children[0].or(children[1]), the alternative evaluated only when needed
  kOptionalOrValue,   // children[0].orValue(children[1]), likewise
  kSetMembership,     // children[0] in value, a constant list of primitives (cel-go's OptOptimize set look-up)
  kError,             // value: an error found while planning (reported when evaluated)
};

struct Node {
  NodeKind kind = NodeKind::kConst;
  std::int64_t id = 0;
  Value value;
  std::string name;                // identifier, field or function name
  std::vector<std::string> names;  // kQualifiedIdent parts
  std::vector<Node> children;
  std::vector<bool> optional_entries;
  bool optional_access = false;
  bool test_only = false;
  // kCall: the overloads that may apply, in the order dispatch tries them; overload_id is the one cel-go reports to
  // the cost estimator (the single resolved overload, else empty, as cel-go's planner does).
  std::vector<const Overload*> overloads;
  const Function* function = nullptr;  // all of the function's overloads, narrowed or not
  std::string overload_id;
  // kCall, kNotStrictlyFalse, kEquals, kNotEquals: how the call is priced (resolved once, by plan_expr).
  CallCostRule cost_rule = CallCostRule::kOne;
  // How a call that no overload accepts reports it: cel-go's stdlib singletons say "no such overload", or
  // "no such overload: _+_" when the first argument lacks the trait they dispatch on; other functions name the
  // signature, "no such overload: f(int, string)".
  enum class NoOverloadMessage { kSignature, kBare, kTraitGuarded };
  NoOverloadMessage no_overload_message = NoOverloadMessage::kSignature;
  std::string iter_var;   // kFold
  std::string iter_var2;  // kFold of two variables (ext.TwoVarComprehensions): list element or map value
  std::string accu_var;
};

// An Ident, Select or Index node whose value cel-go resolves as an attribute (costs one unit at its root).
bool is_attribute(const Node& node);

// Plans a (checked when `checked` is given) expression against env, folding constants when optimize is set.
Node plan_expr(const Env& env, const Expr& expr, const CheckedAst* checked, bool optimize);

// The type value an identifier denotes when it names a type (`int`, `list`, `google.protobuf.Timestamp`, or a type
// the environment declares), else nullopt.
std::optional<TypeValue> type_value_named(const Env& env, std::string_view name);

}  // namespace kapi::cel::interp
