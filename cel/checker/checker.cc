// The type checker, following cel-go v0.22's checker/checker.go (check, checkIdent, checkSelect,
// checkSelectField, checkCreateList/Map/Struct, checkComprehension, joinTypes) and checker/env.go (LookupIdent),
// with cel.Env.Check's post-check validators (cel/validator.go). Calls are in calls.cc.
//
// The walk recurses once per tree level: the parser bounds the depth of what reaches here.
#include "cel/checker/checker_impl.h"

#include <array>
#include <utility>

#include "cel/compile.h"

namespace kapi::cel {
namespace checker {
namespace {

// The type names every cel-go environment knows as identifiers (types.NewRegistry's defaults, and
// optional_type, which cel.OptionalTypes registers and kube enables).
std::optional<Type> builtin_type(std::string_view name) {
  if (name == "bool") return Type::bool_type();
  if (name == "bytes") return Type::bytes_type();
  if (name == "double") return Type::double_type();
  if (name == "google.protobuf.Duration") return Type::duration();
  if (name == "int") return Type::int_type();
  if (name == "list") return Type::list(Type::dyn());
  if (name == "map") return Type::map(Type::dyn(), Type::dyn());
  if (name == "null_type") return Type::null_type();
  if (name == "string") return Type::string_type();
  if (name == "google.protobuf.Timestamp") return Type::timestamp();
  if (name == "type") return Type::type_type();
  if (name == "uint") return Type::uint_type();
  if (name == "optional_type") return Type::opaque("optional_type");
  return std::nullopt;
}

std::string_view without_leading_dot(std::string_view name) {
  return !name.empty() && name.front() == '.' ? name.substr(1) : name;
}

}  // namespace

std::optional<std::string> qualified_name(const Expr& e) {
  // Walk down the operands, then assemble outwards.
  std::vector<std::string_view> fields;
  const Expr* node = &e;
  while (const auto* select = std::get_if<SelectExpr>(&node->kind)) {
    if (select->test_only || !select->operand) return std::nullopt;
    fields.push_back(select->field);
    node = select->operand.get();
  }
  const auto* ident = std::get_if<IdentExpr>(&node->kind);
  if (ident == nullptr) return std::nullopt;
  std::string name = ident->name;
  for (auto field = fields.rbegin(); field != fields.rend(); ++field) {
    name += '.';
    name += *field;
  }
  return name;
}

std::optional<ResolvedIdent> Checker::lookup_ident(std::string_view written) const {
  // kapi compiles without a container, so a name has one candidate: itself, a leading dot aside.
  std::string_view name = without_leading_dot(written);
  if (const Type* local = scopes_.find(name)) return ResolvedIdent{std::string(name), *local};
  if (const Type* variable = env_.find_variable(name)) return ResolvedIdent{std::string(name), *variable};
  // cel-go's own type names come before a library's (which cannot redefine them in cel-go's registry).
  if (auto builtin = builtin_type(name)) return ResolvedIdent{std::string(name), Type::type_of(*builtin)};
  if (const Type* named = env_.find_type(name)) return ResolvedIdent{std::string(name), Type::type_of(*named)};
  return std::nullopt;
}

const Function* Checker::lookup_function(std::string_view name) const {
  return env_.find_function(without_leading_dot(name));
}

const Type& Checker::type_of(const Expr& e) const {
  static const Type dyn;
  auto it = types_.find(e.id);
  return it == types_.end() ? dyn : it->second;
}

std::unordered_map<std::int64_t, Type> Checker::take_types() {
  std::unordered_map<std::int64_t, Type> out;
  out.reserve(types_.size());
  for (auto& [id, t] : types_) out.emplace(id, substitute(subs_, t, true));
  types_.clear();
  return out;
}

void Checker::check_root(Expr& root) { check(root); }

void Checker::check(Expr& e) {
  if (const auto* constant = std::get_if<Constant>(&e.kind)) {
    check_constant(e, *constant);
  } else if (std::holds_alternative<IdentExpr>(e.kind)) {
    check_ident(e);
  } else if (std::holds_alternative<SelectExpr>(e.kind)) {
    check_select(e);
  } else if (std::holds_alternative<CallExpr>(e.kind)) {
    check_call(e);
  } else if (std::holds_alternative<ListExpr>(e.kind)) {
    check_list(e);
  } else if (std::holds_alternative<MapExpr>(e.kind)) {
    check_map(e);
  } else if (std::holds_alternative<StructExpr>(e.kind)) {
    check_struct(e);
  } else if (std::holds_alternative<ComprehensionExpr>(e.kind)) {
    check_comprehension(e);
  } else {
    errors_.unexpected_ast(e.id, "unspecified type");
    set_type(e, Type::error());
  }
}

void Checker::check_constant(Expr& e, const Constant& c) {
  struct Typer {
    Type operator()(const NullLiteral&) const { return Type::null_type(); }
    Type operator()(bool) const { return Type::bool_type(); }
    Type operator()(std::int64_t) const { return Type::int_type(); }
    Type operator()(std::uint64_t) const { return Type::uint_type(); }
    Type operator()(double) const { return Type::double_type(); }
    Type operator()(const std::string&) const { return Type::string_type(); }
    Type operator()(const BytesLiteral&) const { return Type::bytes_type(); }
  };
  set_type(e, std::visit(Typer{}, c));
}

void Checker::check_ident(Expr& e) {
  auto& ident = std::get<IdentExpr>(e.kind);
  if (auto resolved = lookup_ident(ident.name)) {
    set_type(e, resolved->type);
    set_reference(e, Reference{.name = resolved->name});
    ident.name = resolved->name;  // the fully qualified name, as cel-go rewrites it
    return;
  }
  set_type(e, Type::error());
  errors_.undeclared_reference(e.id, ident.name);
}

void Checker::check_select(Expr& e) {
  // A dotted name may be a variable of its own (`a.b.c` declared whole): the longest name wins, as the outermost
  // select is tried before its operand.
  if (auto name = qualified_name(e)) {
    if (auto resolved = lookup_ident(*name)) {
      set_type(e, resolved->type);
      set_reference(e, Reference{.name = resolved->name});
      e.kind = IdentExpr{resolved->name};
      return;
    }
  }
  auto& select = std::get<SelectExpr>(e.kind);
  Type result = check_select_field(e, *select.operand, select.field, false);
  if (select.test_only) result = Type::bool_type();
  set_type(e, substitute(subs_, result, false));
}

std::optional<Type> Checker::lookup_field(std::int64_t id, const Type& object, std::string_view field) {
  const ObjectType* fields = object.object_type();
  if (fields != nullptr) {
    if (const Type* found = fields->field(field)) return *found;
  }
  errors_.undefined_field(id, field);
  return std::nullopt;
}

Type Checker::check_select_field(const Expr& e, Expr& operand, std::string_view field, bool optional) {
  check(operand);
  Type operand_type = substitute(subs_, type_of(operand), false);
  auto [target, was_optional] = unwrap_optional(operand_type);

  Type result = Type::error();
  switch (target.kind()) {
    case TypeKind::kMap: result = target.value(); break;
    case TypeKind::kObject:
      if (auto field_type = lookup_field(e.id, target, field)) result = *field_type;
      break;
    case TypeKind::kTypeParam:
      // Pin the parameter to dyn so nothing later binds it to a type the selection may not have.
      assignable(Type::dyn(), target);
      result = Type::dyn();
      break;
    default:
      if (!is_dyn_or_error(target)) errors_.type_does_not_support_field_selection(e.id, target);
      result = Type::dyn();
  }
  if (was_optional || optional) return Type::optional(std::move(result));
  return result;
}

Type Checker::join_types(const std::optional<Type>& previous, const Type& current) {
  if (!previous) return current;
  if (assignable(*previous, current)) return most_general(*previous, current);
  // cel-go's checker always joins mixed literals to dyn; kube's homogeneity rule is the validator's.
  return Type::dyn();
}

Type Checker::new_type_var() { return Type::type_param("_var" + std::to_string(next_type_var_++)); }

void Checker::assert_type(const Expr& e, const Type& expected) {
  if (!assignable(expected, type_of(e))) errors_.type_mismatch(e.id, expected, type_of(e));
}

void Checker::check_list(Expr& e) {
  auto& list = std::get<ListExpr>(e.kind);
  std::optional<Type> element_type;
  for (std::size_t i = 0; i < list.elements.size(); ++i) {
    Expr& element = list.elements[i];
    check(element);
    Type t = type_of(element);
    bool optional_entry = false;
    for (std::int32_t index : list.optional_indices) optional_entry |= static_cast<std::size_t>(index) == i;
    if (optional_entry) {
      auto [inner, was_optional] = unwrap_optional(t);
      if (!was_optional && !is_dyn(inner)) errors_.type_mismatch(element.id, Type::optional(inner), inner);
      t = inner;
    }
    element_type = join_types(element_type, t);
  }
  set_type(e, Type::list(element_type ? *element_type : new_type_var()));
}

void Checker::check_map(Expr& e) {
  auto& map = std::get<MapExpr>(e.kind);
  std::optional<Type> key_type;
  std::optional<Type> value_type;
  for (MapEntry& entry : map.entries) {
    check(*entry.key);
    key_type = join_types(key_type, type_of(*entry.key));
    check(*entry.value);
    Type t = type_of(*entry.value);
    if (entry.optional) {
      auto [inner, was_optional] = unwrap_optional(t);
      if (!was_optional && !is_dyn(inner)) errors_.type_mismatch(entry.value->id, Type::optional(inner), inner);
      t = inner;
    }
    value_type = join_types(value_type, t);
  }
  if (!key_type) {
    Type key = new_type_var();
    Type value = new_type_var();
    set_type(e, Type::map(std::move(key), std::move(value)));
    return;
  }
  set_type(e, Type::map(*key_type, *value_type));
}

void Checker::check_struct(Expr& e) {
  auto& message = std::get<StructExpr>(e.kind);
  auto resolved = lookup_ident(message.message_name);
  if (!resolved) {
    errors_.undeclared_reference(e.id, message.message_name);
    set_type(e, Type::error());
    return;
  }
  message.message_name = resolved->name;
  set_reference(e, Reference{.name = resolved->name});
  Type result = Type::error();
  if (!is_error(resolved->type)) {
    if (resolved->type.kind() != TypeKind::kType) {
      errors_.not_a_type(e.id, resolved->type);
    } else if (!resolved->type.parameters().empty() && resolved->type.element().kind() == TypeKind::kObject) {
      result = resolved->type.element();
    } else {
      errors_.not_a_message_type(e.id, resolved->type.parameters().empty() ? resolved->type
                                                                            : resolved->type.element());
    }
  }
  set_type(e, result);
  for (StructField& field : message.fields) {
    check(*field.value);
    Type field_type = Type::error();
    if (result.kind() == TypeKind::kObject) {
      if (auto found = lookup_field(field.id, result, field.name)) field_type = *found;
    }
    Type value_type = type_of(*field.value);
    if (field.optional) {
      auto [inner, was_optional] = unwrap_optional(value_type);
      if (!was_optional && !is_dyn(inner)) errors_.type_mismatch(field.value->id, Type::optional(inner), inner);
      value_type = inner;
    }
    if (!assignable(field_type, value_type)) {
      errors_.field_type_mismatch(field.id, field.name, field_type, value_type);
    }
  }
}

void Checker::check_comprehension(Expr& e) {
  auto& comp = std::get<ComprehensionExpr>(e.kind);
  check(*comp.iter_range);
  check(*comp.accu_init);
  Type range_type = substitute(subs_, type_of(*comp.iter_range), false);
  Type accu_type = type_of(*comp.accu_init);
  filter_cross_type_comparisons_ = false;
  scopes_.push();
  scopes_.add(comp.accu_var, accu_type);

  // One-variable comprehensions range over list elements or map keys; two-variable ones bind (index, element)
  // or (key, value).
  const bool two_vars = !comp.iter_var2.empty();
  Type var_type = Type::error();
  Type var2_type = Type::error();
  switch (range_type.kind()) {
    case TypeKind::kList:
      var_type = two_vars ? Type::int_type() : range_type.element();
      var2_type = range_type.element();
      break;
    case TypeKind::kMap:
      var_type = range_type.key();
      var2_type = range_type.value();
      break;
    case TypeKind::kDyn:
    case TypeKind::kError:
    case TypeKind::kTypeParam:
      // Pin an unbound range to dyn so it is not later bound to something it cannot be.
      assignable(Type::dyn(), range_type);
      var_type = Type::dyn();
      var2_type = Type::dyn();
      break;
    default: errors_.not_a_comprehension_range(comp.iter_range->id, range_type);
  }

  scopes_.push();
  scopes_.add(comp.iter_var, var_type);
  if (two_vars) scopes_.add(comp.iter_var2, var2_type);
  check(*comp.loop_condition);
  assert_type(*comp.loop_condition, Type::bool_type());
  check(*comp.loop_step);
  assert_type(*comp.loop_step, accu_type);
  scopes_.pop();  // the result sees the accumulator only
  check(*comp.result);
  scopes_.pop();
  set_type(e, substitute(subs_, type_of(*comp.result), false));
}

}  // namespace checker

CheckResult check(const Env& env, ParsedAst ast) {
  checker::Checker checker(env);
  checker.check_root(ast.root);
  CheckResult result;
  if (checker.errors().empty()) {
    auto types = checker.take_types();
    const CheckerOptions& options = env.checker_options;
    if (options.homogeneous_aggregate_literals) {
      checker::validate_homogeneous_literals(ast.root, types, options.homogeneous_exempt_functions, checker.errors());
    }
    if (options.validate_literals) checker::validate_literals(ast.root, env, checker.errors());
    if (checker.errors().empty()) {
      CheckedAst checked{.source = std::move(ast.source),
                         .root = std::move(ast.root),
                         .source_info = std::move(ast.source_info),
                         .types = std::move(types),
                         .references = checker.take_references()};
      Issues issues;
      for (const auto& validator : options.validators) validator(checked, issues);
      if (issues.empty()) {
        result.ast = std::move(checked);
        return result;
      }
      result.message = issues.to_display_string(checked.source, checked.source_info);
      result.issues = std::move(issues);
      return result;
    }
  }
  result.issues = checker.errors().take();
  result.message = result.issues.to_display_string(ast.source, ast.source_info);
  return result;
}

}  // namespace kapi::cel
