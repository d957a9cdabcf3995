#pragma once
// The type checker's state while it walks one expression (cel-go's checker/checker.go `checker`): the types and
// references found so far, the type-parameter bindings, the comprehension scopes and the errors.
// Internal to cel/checker; the entry point is check() in cel/compile.h.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "cel/ast.h"
#include "cel/checker/errors.h"
#include "cel/checker/scopes.h"
#include "cel/checker/unify.h"
#include "cel/env.h"

namespace kapi::cel::checker {

// What an identifier resolved to.
struct ResolvedIdent {
  std::string name;  // fully qualified, without a leading dot
  Type type;
};

class Checker {
 public:
  explicit Checker(const Env& env)
      : env_(env), filter_cross_type_comparisons_(!env.checker_options.cross_type_numeric_comparisons) {}

  // Types `root` (rewriting qualified names and namespaced calls in place, as cel-go does); the final types have
  // every type parameter replaced by its binding, or dyn.
  void check_root(Expr& root);

  std::unordered_map<std::int64_t, Type> take_types();
  std::unordered_map<std::int64_t, Reference> take_references() { return std::move(references_); }
  TypeErrors& errors() { return errors_; }

 private:
  void check(Expr& e);
  void check_constant(Expr& e, const Constant& c);
  void check_ident(Expr& e);
  void check_select(Expr& e);
  void check_opt_select(Expr& e);
  Type check_select_field(const Expr& e, Expr& operand, std::string_view field, bool optional);
  void check_call(Expr& e);
  void resolve_or_error(Expr& e, const Function& fn, const Expr* target, const std::vector<Expr>& args);
  void check_list(Expr& e);
  void check_map(Expr& e);
  void check_struct(Expr& e);
  void check_comprehension(Expr& e);

  std::optional<ResolvedIdent> lookup_ident(std::string_view name) const;
  const Function* lookup_function(std::string_view name) const;
  std::optional<Type> lookup_field(std::int64_t id, const Type& object, std::string_view field);

  Type join_types(const std::optional<Type>& previous, const Type& current);
  Type new_type_var();
  bool assignable(const Type& from, const Type& to) { return is_assignable(subs_, from, to); }
  void assert_type(const Expr& e, const Type& expected);

  void set_type(const Expr& e, Type t) { types_.insert_or_assign(e.id, std::move(t)); }
  const Type& type_of(const Expr& e) const;
  void set_reference(const Expr& e, Reference r) { references_.insert_or_assign(e.id, std::move(r)); }

  const Env& env_;
  Scopes scopes_;
  Substitutions subs_;
  TypeErrors errors_;
  int next_type_var_ = 0;
  // cel-go drops its overload filter with the scope it enters for the first comprehension and never restores it,
  // so cross-type comparisons type-check inside and after one even when the option is off.
  bool filter_cross_type_comparisons_;
  std::unordered_map<std::int64_t, Type> types_;
  std::unordered_map<std::int64_t, Reference> references_;
};

// `a.b.c` as the dotted name it may stand for (cel-go's containers.ToQualifiedName); nothing for other shapes and
// for presence tests.
std::optional<std::string> qualified_name(const Expr& e);

// After checking: refuses mixed-type list and map literals outside exempt calls (cel-go's
// ValidateHomogeneousAggregateLiterals, which kube enables through cel.HomogeneousAggregateLiterals).
void validate_homogeneous_literals(const Expr& root, const std::unordered_map<std::int64_t, Type>& types,
                                   const std::vector<std::string>& exempt_functions, TypeErrors& errors);

// After checking: string literals given to duration(), timestamp() and matches() must be valid there.
void validate_literals(const Expr& root, const Env& env, TypeErrors& errors);

}  // namespace kapi::cel::checker
