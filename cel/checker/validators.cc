// Post-check validation of aggregate literals, following cel-go v0.22's cel/validator.go
// (homogeneousAggregateLiteralValidator), which kube's base environment turns on with
// cel.HomogeneousAggregateLiterals. The walk keeps its own stack, so it does not recurse.
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

}  // namespace

void validate_homogeneous_literals(const Expr& root, const std::unordered_map<std::int64_t, Type>& types,
                                   const std::vector<std::string>& exempt_functions, TypeErrors& errors) {
  std::vector<const ListExpr*> lists;
  std::vector<const MapExpr*> maps;
  std::vector<Pending> stack{{&root, false}};
  while (!stack.empty()) {
    Pending next = stack.back();
    stack.pop_back();
    bool exempt = next.exempt;
    if (const auto* call = std::get_if<CallExpr>(&next.expr->kind)) {
      exempt |= std::find(exempt_functions.begin(), exempt_functions.end(), call->function) != exempt_functions.end();
    } else if (const auto* list = std::get_if<ListExpr>(&next.expr->kind)) {
      if (!exempt) lists.push_back(list);
    } else if (const auto* map = std::get_if<MapExpr>(&next.expr->kind)) {
      if (!exempt) maps.push_back(map);
    }
    push_children(*next.expr, exempt, stack);
  }

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
