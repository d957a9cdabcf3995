// Post-check validation, following cel-go v0.22's cel/validator.go: homogeneousAggregateLiteralValidator (kube's
// cel.HomogeneousAggregateLiterals) and the format validators for duration, timestamp and regex literals (kube's
// ASTValidators from 1.29). The walks keep their own stack, so they do not recurse.
#include <algorithm>
#include <utility>

#include "cel/checker/checker_impl.h"

namespace kapi::cel::checker {
namespace {

struct Pending {
  const Expr* expr;
  bool exempt;  // inside a call of an exempt function
};

const Type& type_at(const std::unordered_map<std::int64_t, Type>& types, std::int64_t id) {
  static const Type dyn;
  auto it = types.find(id);
  return it == types.end() ? dyn : it->second;
}

Type entry_type(const Type& t, bool optional_entry) {
  if (!optional_entry) return t;
  return unwrap_optional(t).first;
}

void push_children(const Expr& e, bool exempt, std::vector<Pending>& stack) {
  // Children go on the stack in reverse so they are visited in source order.
  std::vector<const Expr*> children;
  if (const auto* select = std::get_if<SelectExpr>(&e.kind)) {
    children.push_back(select->operand.get());
  } else if (const auto* call = std::get_if<CallExpr>(&e.kind)) {
    children.push_back(call->target.get());
    for (const Expr& arg : call->args) children.push_back(&arg);
  } else if (const auto* list = std::get_if<ListExpr>(&e.kind)) {
    for (const Expr& element : list->elements) children.push_back(&element);
  } else if (const auto* map = std::get_if<MapExpr>(&e.kind)) {
    for (const MapEntry& entry : map->entries) {
      children.push_back(entry.key.get());
      children.push_back(entry.value.get());
    }
  } else if (const auto* message = std::get_if<StructExpr>(&e.kind)) {
    for (const StructField& field : message->fields) children.push_back(field.value.get());
  } else if (const auto* comp = std::get_if<ComprehensionExpr>(&e.kind)) {
    children = {comp->iter_range.get(), comp->accu_init.get(), comp->loop_condition.get(), comp->loop_step.get(),
                comp->result.get()};
  }
  for (auto child = children.rbegin(); child != children.rend(); ++child) {
    if (*child != nullptr) stack.push_back({*child, exempt});
  }
}

// Every node of the tree, parents before children, with whether an exempt call encloses it.
template <typename Visit>
void walk(const Expr& root, const std::vector<std::string>& exempt_functions, Visit&& visit) {
  std::vector<Pending> stack{{&root, false}};
  while (!stack.empty()) {
    Pending next = stack.back();
    stack.pop_back();
    bool exempt = next.exempt;
    if (const auto* call = std::get_if<CallExpr>(&next.expr->kind)) {
      exempt |= std::find(exempt_functions.begin(), exempt_functions.end(), call->function) != exempt_functions.end();
    }
    visit(*next.expr, exempt);
    push_children(*next.expr, exempt, stack);
  }
}

// The implementation of `function` taking one string (or two, for matches), if the environment has one.
const Overload* string_overload(const Env& env, std::string_view function, std::size_t arity) {
  const Function* fn = env.find_function(function);
  if (fn == nullptr) return nullptr;
  for (const Overload& overload : fn->overloads) {
    if (!overload.impl || overload.params.size() != arity) continue;
    bool all_strings = true;
    for (const Type& p : overload.params) all_strings &= p.kind() == TypeKind::kString;
    if (all_strings) return &overload;
  }
  return nullptr;
}

}  // namespace

void validate_literals(const Expr& root, const Env& env, TypeErrors& errors) {
  const Overload* duration = string_overload(env, "duration", 1);
  const Overload* timestamp = string_overload(env, "timestamp", 1);
  const Overload* matches = string_overload(env, "matches", 2);
  walk(root, {}, [&](const Expr& e, bool) {
    const auto* call = std::get_if<CallExpr>(&e.kind);
    if (call == nullptr || call->args.empty()) return;
    // As cel-go, the first argument after any receiver: the pattern of `s.matches(p)`, but the text of the
    // global `matches(s, p)`.
    const Expr& arg = call->args.front();
    const auto* literal = std::get_if<Constant>(&arg.kind);
    const auto* text = literal != nullptr ? std::get_if<std::string>(literal) : nullptr;
    if (text == nullptr) return;
    std::vector<Value> args{Value(*text)};
    const Overload* overload = nullptr;
    if (call->function == "duration") {
      overload = duration;
    } else if (call->function == "timestamp") {
      overload = timestamp;
    } else if (call->function == "matches") {
      overload = matches;
      args.insert(args.begin(), Value(std::string()));  // a pattern is checked by matching it against ""
    }
    if (overload == nullptr) return;
    if (overload->impl(args).is_error()) errors.invalid_argument(arg.id, call->function);
  });
}

void validate_homogeneous_literals(const Expr& root, const std::unordered_map<std::int64_t, Type>& types,
                                   const std::vector<std::string>& exempt_functions, TypeErrors& errors) {
  std::vector<const ListExpr*> lists;
  std::vector<const MapExpr*> maps;
  walk(root, exempt_functions, [&](const Expr& e, bool exempt) {
    if (exempt) return;
    if (const auto* list = std::get_if<ListExpr>(&e.kind)) lists.push_back(list);
    if (const auto* map = std::get_if<MapExpr>(&e.kind)) maps.push_back(map);
  });

  for (const ListExpr* list : lists) {
    std::optional<Type> first;
    for (std::size_t i = 0; i < list->elements.size(); ++i) {
      const Expr& element = list->elements[i];
      bool optional_entry = std::find(list->optional_indices.begin(), list->optional_indices.end(),
                                      static_cast<std::int32_t>(i)) != list->optional_indices.end();
      Type t = entry_type(type_at(types, element.id), optional_entry);
      if (!first) {
        first = std::move(t);
        continue;
      }
      if (!is_equivalent(*first, t)) {
        errors.type_mismatch(element.id, *first, t);
        break;
      }
    }
  }
  for (const MapExpr* map : maps) {
    std::optional<Type> first_key;
    std::optional<Type> first_value;
    for (const MapEntry& entry : map->entries) {
      Type key = type_at(types, entry.key->id);
      Type value = entry_type(type_at(types, entry.value->id), entry.optional);
      if (!first_key) {
        first_key = std::move(key);
        first_value = std::move(value);
        continue;
      }
      if (!is_equivalent(*first_key, key)) errors.type_mismatch(entry.key->id, *first_key, key);
      if (!is_equivalent(*first_value, value)) errors.type_mismatch(entry.value->id, *first_value, value);
    }
  }
}

}  // namespace kapi::cel::checker
