// Planning an expression once per Program, after cel-go's interpreter/planner.go: identifiers resolve through the
// checker's references (or stay candidate names when unchecked), calls are narrowed to the overloads the checker
// chose, and cel-go's special forms (&&, ||, ?:, ==, !=, indexing, optional selection) get their own nodes.
#include <algorithm>
#include <tuple>

#include "cel/interpreter/evaluator.h"
#include "cel/interpreter/plan.h"
#include "cel/operators.h"

namespace kapi::cel::interp {
namespace {

Value constant_value(const Constant& constant) {
  return std::visit(
      [](const auto& c) -> Value {
        using T = std::decay_t<decltype(c)>;
        if constexpr (std::is_same_v<T, NullLiteral>) {
          return Value();
        } else if constexpr (std::is_same_v<T, BytesLiteral>) {
          return Value(Bytes{c.bytes});
        } else {
          return Value(c);
        }
      },
      constant);
}

Node error_node(std::int64_t id, std::string message) {
  Node node;
  node.kind = NodeKind::kError;
  node.id = id;
  node.value = Value::error(ErrorCode::kGeneric, std::move(message));
  return node;
}

Node const_node(std::int64_t id, Value value) {
  Node node;
  node.kind = NodeKind::kConst;
  node.id = id;
  node.value = std::move(value);
  return node;
}

// `a.b.c` as {"a", "b", "c"} when the expression is only identifiers and field selections.
bool qualified_name_parts(const Expr& expr, std::vector<std::string>& parts) {
  if (const auto* ident = std::get_if<IdentExpr>(&expr.kind)) {
    parts.push_back(ident->name);
    return true;
  }
  if (const auto* select = std::get_if<SelectExpr>(&expr.kind)) {
    if (select->test_only || !select->operand) return false;
    if (!qualified_name_parts(*select->operand, parts)) return false;
    parts.push_back(select->field);
    return true;
  }
  return false;
}

std::string join_names(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& part : parts) {
    if (!out.empty()) out += '.';
    out += part;
  }
  return out;
}

Node::NoOverloadMessage no_overload_message(std::string_view name) {
  // The functions cel-go's standard library binds as one implementation dispatching on a trait of the first
  // argument (Adder, Comparer, Sizer, Matcher...), and those it binds without a trait.
  static const std::vector<std::string_view> kTraitGuarded = {"_+_", "_-_", "_*_", "_/_", "_%_", "-_", "_<_",
                                                              "_<=_", "_>_", "_>=_", "size", "matches"};
  static const std::vector<std::string_view> kBare = {"!_", "@in", "type", "dyn"};
  if (std::find(kTraitGuarded.begin(), kTraitGuarded.end(), name) != kTraitGuarded.end()) {
    return Node::NoOverloadMessage::kTraitGuarded;
  }
  if (std::find(kBare.begin(), kBare.end(), name) != kBare.end()) return Node::NoOverloadMessage::kBare;
  return Node::NoOverloadMessage::kSignature;
}

class Planner {
 public:
  Planner(const Env& env, const CheckedAst* checked, bool optimize)
      : env_(env), checked_(checked), optimize_(optimize) {}

  Node plan(const Expr& expr) {
    Node node = std::visit([&](const auto& kind) { return plan_kind(expr, kind); }, expr.kind);
    return optimize_ ? optimize(std::move(node)) : node;
  }

 private:
  const Reference* reference(std::int64_t id) const {
    if (!checked_) return nullptr;
    auto it = checked_->references.find(id);
    return it == checked_->references.end() ? nullptr : &it->second;
  }

  Node plan_kind(const Expr& expr, const std::monostate&) { return error_node(expr.id, "unsupported expr"); }

  Node plan_kind(const Expr& expr, const Constant& constant) { return const_node(expr.id, constant_value(constant)); }

  Node plan_checked_ident(std::int64_t id, const Reference& ref) {
    if (ref.value) return const_node(id, constant_value(*ref.value));
    if (checked_->type_of(id).kind() == TypeKind::kType) {
      if (auto type = type_value_named(env_, ref.name)) return const_node(id, Value(*type));
    }
    Node node;
    node.kind = NodeKind::kIdent;
    node.id = id;
    node.name = ref.name;
    return node;
  }

  Node plan_unchecked_name(std::int64_t id, std::vector<std::string> parts) {
    if (!parts.empty() && parts.front().starts_with('.')) parts.front().erase(0, 1);
    Node node;
    node.kind = NodeKind::kQualifiedIdent;
    node.id = id;
    node.names = std::move(parts);
    return node;
  }

  Node plan_kind(const Expr& expr, const IdentExpr& ident) {
    if (const Reference* ref = reference(expr.id)) return plan_checked_ident(expr.id, *ref);
    return plan_unchecked_name(expr.id, {ident.name});
  }

  Node plan_kind(const Expr& expr, const SelectExpr& select) {
    if (const Reference* ref = reference(expr.id); ref && !select.test_only) {
      return plan_checked_ident(expr.id, *ref);
    }
    if (!select.operand) return error_node(expr.id, "unsupported expr");
    if (!checked_ && !select.test_only) {
      std::vector<std::string> parts;
      if (qualified_name_parts(expr, parts)) return plan_unchecked_name(expr.id, std::move(parts));
    }
    Node node;
    node.kind = NodeKind::kSelect;
    node.id = expr.id;
    node.name = select.field;
    node.test_only = select.test_only;
    node.children.push_back(plan(*select.operand));
    return node;
  }

  Node plan_kind(const Expr& expr, const CallExpr& call) {
    std::string_view fn = call.function;
    std::size_t argc = call.args.size() + (call.target ? 1 : 0);
    auto plan_args = [&](Node& node) {
      if (call.target) node.children.push_back(plan(*call.target));
      for (const Expr& arg : call.args) node.children.push_back(plan(arg));
    };
    auto special = [&](NodeKind kind) {
      Node node;
      node.kind = kind;
      node.id = expr.id;
      node.name = call.function;
      if (const Reference* ref = reference(expr.id); ref && ref->overload_ids.size() == 1) {
        node.overload_id = ref->overload_ids.front();
      }
      plan_args(node);
      return node;
    };
    if (fn == operators::kLogicalAnd && argc == 2) return special(NodeKind::kAnd);
    if (fn == operators::kLogicalOr && argc == 2) return special(NodeKind::kOr);
    if (fn == operators::kConditional && argc == 3) return special(NodeKind::kConditional);
    if (fn == operators::kEquals && argc == 2) return special(NodeKind::kEquals);
    if (fn == operators::kNotEquals && argc == 2) return special(NodeKind::kNotEquals);
    if ((fn == operators::kNotStrictlyFalse || fn == "__not_strictly_false__") && argc == 1) {
      return special(NodeKind::kNotStrictlyFalse);
    }
    if ((fn == operators::kIndex || fn == operators::kOptIndex) && argc == 2 && !call.target) {
      Node node = special(NodeKind::kIndex);
      node.optional_access = fn == operators::kOptIndex;
      return node;
    }
    if (fn == operators::kOptSelect && argc == 2 && !call.target) {
      const auto* field = std::get_if<Constant>(&call.args[1].kind);
      const auto* name = field ? std::get_if<std::string>(field) : nullptr;
      if (!name) return error_node(expr.id, "unsupported optional field selection");
      Node node;
      node.kind = NodeKind::kSelect;
      node.id = expr.id;
      node.name = *name;
      node.optional_access = true;
      node.children.push_back(plan(call.args[0]));
      return node;
    }
    return plan_function_call(expr, call);
  }

  Node plan_function_call(const Expr& expr, const CallExpr& call) {
    const Reference* ref = reference(expr.id);
    std::string name = call.function;
    const Expr* target = call.target.get();
    // A receiver that spells a namespace (`optional.of(x)` parsed as a member call on `optional`) names a global
    // function, as cel-go's resolveFunction decides.
    if (target) {
      std::vector<std::string> parts;
      if (qualified_name_parts(*target, parts)) {
        std::string qualified = join_names(parts) + "." + name;
        if (qualified.starts_with('.')) qualified.erase(0, 1);
        bool target_is_variable = reference(target->id) != nullptr || env_.find_variable(parts.front()) != nullptr;
        if (env_.find_function(qualified) && (!target_is_variable || !env_.find_function(name))) {
          name = std::move(qualified);
          target = nullptr;
        }
      }
    } else if (name.starts_with('.')) {
      name.erase(0, 1);
    }

    Node node;
    node.kind = NodeKind::kCall;
    node.id = expr.id;
    node.name = name;
    if (target) node.children.push_back(plan(*target));
    for (const Expr& arg : call.args) node.children.push_back(plan(arg));
    std::size_t argc = node.children.size();
    bool member = target != nullptr;

    const Function* function = env_.find_function(name);
    if (!function) return error_node(expr.id, "no such overload: " + name);
    node.function = function;
    if (ref && !ref->overload_ids.empty()) {
      for (const std::string& id : ref->overload_ids) {
        for (const Overload& overload : function->overloads) {
          if (overload.id == id && overload.params.size() == argc) node.overloads.push_back(&overload);
        }
      }
      if (ref->overload_ids.size() == 1) node.overload_id = ref->overload_ids.front();
    }
    if (node.overloads.empty()) {
      // Unchecked (or the checker's choice is unknown here): every overload of the right arity, those declared in
      // the call's own style (receiver or global) first.
      for (int pass = 0; pass < 2; ++pass) {
        for (const Overload& overload : function->overloads) {
          if (overload.params.size() != argc) continue;
          if ((overload.member == member) == (pass == 0)) node.overloads.push_back(&overload);
        }
      }
    }
    node.no_overload_message = no_overload_message(name);
    // cel-go's optional library decorates or() and orValue() so that the alternative is evaluated lazily.
    for (auto [function_name, id, kind] : {std::tuple{"or", "optional_or_optional", NodeKind::kOptionalOr},
                                           std::tuple{"orValue", "optional_orValue_value", NodeKind::kOptionalOrValue}}) {
      if (name != function_name || argc != 2) continue;
      if (!node.overload_id.empty() && node.overload_id != id) continue;
      bool declared = std::any_of(node.overloads.begin(), node.overloads.end(),
                                  [id = std::string_view(id)](const Overload* o) { return o->id == id; });
      if (declared) node.kind = kind;
    }
    return node;
  }

  Node plan_kind(const Expr& expr, const ListExpr& list) {
    Node node;
    node.kind = NodeKind::kList;
    node.id = expr.id;
    node.optional_entries.assign(list.elements.size(), false);
    for (std::int32_t index : list.optional_indices) {
      if (index < 0 || static_cast<std::size_t>(index) >= list.elements.size()) {
        return error_node(expr.id, "optional index " + std::to_string(index) + " out of element bounds [0, " +
                                       std::to_string(list.elements.size()) + "]");
      }
      node.optional_entries[static_cast<std::size_t>(index)] = true;
    }
    for (const Expr& element : list.elements) node.children.push_back(plan(element));
    return node;
  }

  Node plan_kind(const Expr& expr, const MapExpr& map) {
    Node node;
    node.kind = NodeKind::kMap;
    node.id = expr.id;
    for (const MapEntry& entry : map.entries) {
      if (!entry.key || !entry.value) return error_node(expr.id, "unsupported expr");
      node.children.push_back(plan(*entry.key));
      node.children.push_back(plan(*entry.value));
      node.optional_entries.push_back(entry.optional);
    }
    return node;
  }

  Node plan_kind(const Expr& expr, const StructExpr& object) {
    // kapi declares no message types, so every message literal names an unknown type (cel-go's planner error).
    return error_node(expr.id, "unknown type: " + object.message_name);
  }

  Node plan_kind(const Expr& expr, const ComprehensionExpr& fold) {
    if (!fold.iter_range || !fold.accu_init || !fold.loop_condition || !fold.loop_step || !fold.result) {
      return error_node(expr.id, "unsupported expr");
    }
    Node node;
    node.kind = NodeKind::kFold;
    node.id = expr.id;
    node.iter_var = fold.iter_var;
    node.iter_var2 = fold.iter_var2;
    node.accu_var = fold.accu_var;
    node.children.push_back(plan(*fold.iter_range));
    node.children.push_back(plan(*fold.accu_init));
    node.children.push_back(plan(*fold.loop_condition));
    node.children.push_back(plan(*fold.loop_step));
    node.children.push_back(plan(*fold.result));
    return node;
  }

  // kube plans with cel.OptOptimize (cel-go's decOptimize), bottom up: list and map literals of constants and
  // conversions of constants become constants, and `x in <constant list of primitives>` a set look-up. Folded
  // nodes cost nothing at run time. A conversion that fails stays a call (cel-go refuses to plan it; Program has
  // no way to say so) and reports its error when evaluated.
  Node optimize(Node node) {
    auto all_constant = [](const std::vector<Node>& nodes) {
      return std::all_of(nodes.begin(), nodes.end(), [](const Node& n) { return n.kind == NodeKind::kConst; });
    };
    auto folded = [&](const Node& n) {
      MapActivation nothing;
      Evaluator evaluator(env_, nothing, std::nullopt, false);
      return const_node(n.id, evaluator.eval(n, nullptr));
    };
    if ((node.kind == NodeKind::kList || node.kind == NodeKind::kMap) && all_constant(node.children)) {
      return folded(node);
    }
    if (node.kind != NodeKind::kCall) return node;
    static const std::vector<std::string_view> kConversions = {"bool", "bytes", "double", "duration", "dyn",
                                                               "int", "string", "timestamp", "type", "uint"};
    if (node.children.size() == 1 && node.children[0].kind == NodeKind::kConst &&
        std::find(kConversions.begin(), kConversions.end(), node.name) != kConversions.end()) {
      Node value = folded(node);
      if (!value.value.is_error()) return value;
      return node;
    }
    if (node.overload_id == "in_list" && node.children.size() == 2 && node.children[1].kind == NodeKind::kConst) {
      const List* list = node.children[1].value.as_list();
      if (!list) return node;
      if (list->size() == 0) return const_node(node.id, Value(false));
      for (std::size_t i = 0; i < list->size(); ++i) {
        Value element = list->at(i);
        bool primitive = element.is<bool>() || element.is<std::int64_t>() || element.is<std::uint64_t>() ||
                         element.is<double>() || element.is<std::string>();
        if (!primitive) return node;
      }
      Node set;
      set.kind = NodeKind::kSetMembership;
      set.id = node.id;
      set.value = node.children[1].value;
      set.children.push_back(std::move(node.children[0]));
      return set;
    }
    return node;
  }

  const Env& env_;
  const CheckedAst* checked_;
  bool optimize_;
};

}  // namespace

bool is_attribute(const Node& node) {
  switch (node.kind) {
    case NodeKind::kIdent:
    case NodeKind::kQualifiedIdent:
      return true;
    case NodeKind::kSelect:
      return !node.test_only;
    case NodeKind::kIndex:
      return true;
    default:
      return false;
  }
}

std::optional<TypeValue> type_value_named(const Env& env, std::string_view name) {
  static const std::vector<std::string_view> kBuiltin = {
      "bool", "bytes", "double", "google.protobuf.Duration", "int", "list", "map", "null_type", "string",
      "google.protobuf.Timestamp", "type", "uint", "optional_type"};
  if (std::find(kBuiltin.begin(), kBuiltin.end(), name) != kBuiltin.end()) return TypeValue{std::string(name)};
  if (env.find_type(name)) return TypeValue{std::string(name)};
  return std::nullopt;
}

namespace {

// Each call's cost rule, looked up by name once here rather than on every evaluation. An explicit stack: the
// planned tree is as deep as the expression.
void assign_cost_rules(Node& root) {
  std::vector<Node*> pending{&root};
  while (!pending.empty()) {
    Node& node = *pending.back();
    pending.pop_back();
    switch (node.kind) {
      case NodeKind::kCall:
      case NodeKind::kNotStrictlyFalse:
        node.cost_rule = call_cost_rule(node.name, node.overload_id);
        break;
      case NodeKind::kEquals:
        node.cost_rule = call_cost_rule(node.name, "equals");
        break;
      case NodeKind::kNotEquals:
        node.cost_rule = call_cost_rule(node.name, "not_equals");
        break;
      default:
        break;
    }
    for (Node& child : node.children) pending.push_back(&child);
  }
}

}  // namespace

Node plan_expr(const Env& env, const Expr& expr, const CheckedAst* checked, bool optimize) {
  Node root = Planner(env, checked, optimize).plan(expr);
  assign_cost_rules(root);
  return root;
}

}  // namespace kapi::cel::interp
