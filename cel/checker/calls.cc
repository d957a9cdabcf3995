// Calls and overload resolution, following cel-go v0.22's checker/checker.go (checkCall, checkOptSelect,
// resolveOverload) and checker/env.go (the cross-type numeric comparison overloads it filters).
#include <algorithm>
#include <array>

#include "cel/checker/checker_impl.h"
#include "cel/operators.h"

namespace kapi::cel::checker {
namespace {

// The overloads cel-go's checker skips unless cel.CrossTypeNumericComparisons is on.
bool is_cross_type_numeric_comparison(std::string_view id) {
  static constexpr std::array<std::string_view, 4> kOps = {"less_", "less_equals_", "greater_", "greater_equals_"};
  static constexpr std::array<std::string_view, 6> kPairs = {"double_int64", "double_uint64", "int64_double",
                                                             "int64_uint64", "uint64_double", "uint64_int64"};
  for (std::string_view op : kOps) {
    if (!id.starts_with(op)) continue;
    std::string_view rest = id.substr(op.size());
    if (std::find(kPairs.begin(), kPairs.end(), rest) != kPairs.end()) return true;
  }
  return false;
}

void collect_type_params(const Type& t, std::vector<std::string>& names) {
  if (t.kind() == TypeKind::kTypeParam) {
    std::string name(t.name());
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(std::move(name));
  }
  for (const Type& p : t.parameters()) collect_type_params(p, names);
}

}  // namespace

void Checker::check_call(Expr& e) {
  auto& call = std::get<CallExpr>(e.kind);
  if (call.function == operators::kOptSelect) {
    check_opt_select(e);
    return;
  }
  for (Expr& arg : call.args) check(arg);

  if (!call.target) {
    const Function* fn = lookup_function(call.function);
    if (fn == nullptr) {
      errors_.undeclared_reference(e.id, call.function);
      set_type(e, Type::error());
      return;
    }
    call.function = fn->name;
    resolve_or_error(e, *fn, nullptr, call.args);
    return;
  }

  // `a.b.f(x)` is either the namespaced function `a.b.f` or `f` called on `a.b`; the namespaced reading wins, and
  // the call is rewritten to a plain global call as cel-go rewrites it.
  if (auto prefix = qualified_name(*call.target)) {
    if (const Function* fn = lookup_function(*prefix + "." + call.function)) {
      call.function = fn->name;
      call.target.reset();
      resolve_or_error(e, *fn, nullptr, call.args);
      return;
    }
  }

  check(*call.target);
  const Function* fn = lookup_function(call.function);
  if (fn == nullptr) {
    set_type(e, Type::error());
    errors_.undeclared_reference(e.id, call.function);
    return;
  }
  resolve_or_error(e, *fn, call.target.get(), call.args);
}

void Checker::check_opt_select(Expr& e) {
  auto& call = std::get<CallExpr>(e.kind);
  if (call.args.size() != 2) {
    errors_.not_an_optional_field_selection(e.id);
    set_type(e, Type::error());
    return;
  }
  Expr& operand = call.args[0];
  Expr& field = call.args[1];
  const auto* literal = std::get_if<Constant>(&field.kind);
  const auto* name = literal != nullptr ? std::get_if<std::string>(literal) : nullptr;
  if (name == nullptr) {
    errors_.not_an_optional_field_selection(field.id);
    set_type(e, Type::error());
    return;
  }
  // As in cel-go, the field-name literal itself gets no type: it is part of the selection, not a value.
  Type result = check_select_field(e, operand, *name, true);
  set_type(e, substitute(subs_, result, false));
  set_reference(e, Reference{.overload_ids = {"select_optional_field"}});
}

void Checker::resolve_or_error(Expr& e, const Function& fn, const Expr* target, const std::vector<Expr>& args) {
  std::vector<Type> arg_types;
  if (target != nullptr) arg_types.push_back(type_of(*target));
  for (const Expr& arg : args) arg_types.push_back(type_of(arg));
  const bool member_call = target != nullptr;

  std::optional<Type> result;
  Reference reference;
  for (const Overload& overload : fn.overloads) {
    if (filter_cross_type_comparisons_ && is_cross_type_numeric_comparison(overload.id)) {
      continue;
    }
    if (overload.member != member_call) continue;

    // The logical operators take bool arguments and report each one that is not, rather than a missing overload.
    if (fn.name == operators::kLogicalAnd || fn.name == operators::kLogicalOr) {
      bool mismatch = false;
      for (std::size_t i = 0; i < arg_types.size(); ++i) {
        if (!assignable(arg_types[i], Type::bool_type())) {
          errors_.type_mismatch(args[i].id, Type::bool_type(), arg_types[i]);
          mismatch = true;
        }
      }
      if (mismatch) {
        set_type(e, Type::error());
        return;
      }
      set_type(e, Type::bool_type());
      set_reference(e, Reference{.overload_ids = {overload.id}});
      return;
    }

    // A generic overload gets fresh type variables for its parameters at each call. cel-go mints them for every
    // overload of the call's style, even one of another arity, and their numbers show in messages; so an overload
    // that cannot match uses up its numbers without the work of instantiating it.
    std::vector<std::string> type_params;
    for (const Type& p : overload.params) collect_type_params(p, type_params);
    collect_type_params(overload.result, type_params);
    if (overload.params.size() != arg_types.size()) {
      next_type_var_ += static_cast<int>(type_params.size());
      continue;
    }
    const std::vector<Type>* params = &overload.params;
    const Type* overload_result = &overload.result;
    std::vector<Type> fresh_params;
    Type fresh_result;
    if (!type_params.empty()) {
      Substitutions fresh;
      for (const std::string& name : type_params) fresh.bind(Type::type_param(name), new_type_var());
      for (const Type& p : overload.params) fresh_params.push_back(substitute(fresh, p, false));
      fresh_result = substitute(fresh, overload.result, false);
      params = &fresh_params;
      overload_result = &fresh_result;
    }

    if (!is_assignable_list(subs_, arg_types, *params)) continue;
    reference.overload_ids.push_back(overload.id);
    Type resolved = substitute(subs_, *overload_result, false);
    if (!result) {
      result = std::move(resolved);
    } else if (!is_dyn(*result) && !is_exact(resolved, *result)) {
      result = Type::dyn();
    }
  }

  if (!result) {
    for (Type& t : arg_types) t = substitute(subs_, t, true);
    errors_.no_matching_overload(e.id, fn.name, arg_types, member_call);
    set_type(e, Type::error());
    return;
  }
  set_type(e, std::move(*result));
  set_reference(e, std::move(reference));
}

}  // namespace kapi::cel::checker
