// Evaluation of planned expressions with cel-go's semantics (interpreter/interpretable.go, attributes.go): errors
// are values, && and || absorb errors commutatively, comprehensions scope their variables and stop when the loop
// condition is false, and attribute chains (a.b[c].?d) resolve as cel-go's attributes do, optional chains included.
// Costs follow cel-go's CostObserver (runtimecost.go).
#include "cel/interpreter/evaluator.h"

#include <algorithm>

#include "cel/cost.h"

namespace kapi::cel::interp {
namespace {

// A list a comprehension accumulates into (cel-go's mutable list for `@result + [x]`): views of one growing vector,
// each seeing only its own length, so appending from the newest view extends the vector in place instead of
// copying the accumulator at every step. Only the evaluation that made it grows it (see Evaluator::eval_call), and
// the fold hands out a plain list as its result.
class AccumulatorList final : public List {
 public:
  AccumulatorList(std::shared_ptr<std::vector<Value>> items, std::size_t length, std::shared_ptr<const int> owner)
      : items_(std::move(items)), length_(length), owner_(std::move(owner)) {}
  std::size_t size() const override { return length_; }
  Value at(std::size_t index) const override { return (*items_)[index]; }

  const std::shared_ptr<std::vector<Value>>& items() const { return items_; }
  const int* owner() const { return owner_.get(); }

 private:
  std::shared_ptr<std::vector<Value>> items_;
  std::size_t length_;
  std::shared_ptr<const int> owner_;
};

const AccumulatorList* as_accumulator(const Value& value) {
  const List* list = value.as_list();
  return list ? dynamic_cast<const AccumulatorList*>(list) : nullptr;
}

Value freeze(Value value) {
  const AccumulatorList* accumulator = as_accumulator(value);
  if (!accumulator) return value;
  const std::vector<Value>& items = *accumulator->items();
  return Value::list(std::vector<Value>(items.begin(), items.begin() + static_cast<std::ptrdiff_t>(accumulator->size())));
}

Value no_such_overload_bare() { return Value::error(ErrorCode::kNoSuchOverload, "no such overload"); }

// Go's %T of a cel-go value, for the message of a comprehension over something that is not iterable.
std::string go_type_name(const Value& value) {
  std::string name = value.type_name();
  if (name == "int") return "types.Int";
  if (name == "uint") return "types.Uint";
  if (name == "double") return "types.Double";
  if (name == "bool") return "types.Bool";
  if (name == "string") return "types.String";
  if (name == "bytes") return "types.Bytes";
  if (name == "null_type") return "types.Null";
  if (name == "google.protobuf.Timestamp") return "types.Timestamp";
  if (name == "google.protobuf.Duration") return "types.Duration";
  if (name == "optional_type") return "*types.Optional";
  if (name == "type") return "*types.Type";
  return name;
}

std::string join_prefix(const std::vector<std::string>& names, std::size_t count) {
  std::string out;
  for (std::size_t i = 0; i < count; ++i) {
    if (i > 0) out += '.';
    out += names[i];
  }
  return out;
}

Value missing_attribute(std::string_view name) {
  return Value::error(ErrorCode::kGeneric, "no such attribute(s): " + std::string(name));
}

}  // namespace

void Evaluator::charge(std::uint64_t units) {
  cost_ = units > UINT64_MAX - cost_ ? UINT64_MAX : cost_ + units;
  if (cost_limit_ && cost_ > *cost_limit_) throw CostLimitExceeded{};
}

const Value* Evaluator::lookup(std::string_view name, Scope* scope) {
  for (Scope* s = scope; s; s = s->parent) {
    if (name == s->fold->accu_var) {
      if (!s->accu) {
        Value init = eval(s->fold->children[1], s->parent);
        const List* list = init.as_list();
        if (list && list->size() == 0) {
          if (!accumulator_owner_) accumulator_owner_ = std::make_shared<const int>(0);
          init = Value(std::shared_ptr<const List>(std::make_shared<const AccumulatorList>(
              std::make_shared<std::vector<Value>>(), 0, accumulator_owner_)));
        }
        s->accu = std::move(init);
      }
      return &*s->accu;
    }
    if (!s->computing_result) {
      if (name == s->fold->iter_var) return s->iter_value;
      if (!s->fold->iter_var2.empty() && name == s->fold->iter_var2) return s->iter_value2;
    }
  }
  return activation_.find(name);
}

Value Evaluator::eval(const Node& node, Scope* scope) {
  switch (node.kind) {
    case NodeKind::kConst:
    case NodeKind::kError:
      return node.value;
    case NodeKind::kIdent:
    case NodeKind::kQualifiedIdent:
    case NodeKind::kSelect:
    case NodeKind::kIndex:
      return eval_attribute(node, scope, true);
    case NodeKind::kCall:
      return eval_call(node, scope);
    case NodeKind::kAnd:
      return eval_and_or(node, scope, true);
    case NodeKind::kOr:
      return eval_and_or(node, scope, false);
    case NodeKind::kConditional:
      return eval_conditional(node, scope, false);
    case NodeKind::kNotStrictlyFalse: {
      Value arg = eval(node.children[0], scope);
      Value result = arg.is<bool>() ? arg : Value(true);
      charge(call_cost(node.cost_rule, std::span<const Value>(&arg, 1), result));
      return result;
    }
    case NodeKind::kEquals:
      return eval_equality(node, scope, false);
    case NodeKind::kNotEquals:
      return eval_equality(node, scope, true);
    case NodeKind::kList:
      return eval_list(node, scope);
    case NodeKind::kMap:
      return eval_map(node, scope);
    case NodeKind::kFold:
      return eval_fold(node, scope);
    case NodeKind::kSetMembership: {
      Value element = eval(node.children[0], scope);
      if (element.is_error()) return element;
      const List& list = *node.value.as_list();
      for (std::size_t i = 0; i < list.size(); ++i) {
        if (equals(element, list.at(i))) return Value(true);
      }
      return Value(false);
    }
    case NodeKind::kOptionalOr:
    case NodeKind::kOptionalOrValue: {
      Value lhs = eval(node.children[0], scope);
      const auto* optional = lhs.get_if<OptionalValue>();
      if (!optional) return lhs;
      if (optional->has_value()) return node.kind == NodeKind::kOptionalOr ? lhs : *optional->value;
      return eval(node.children[1], scope);
    }
  }
  return Value::error(ErrorCode::kGeneric, "unsupported expr");
}

Value Evaluator::eval_root(const Node& root, Scope* scope, bool charge_root,
                           std::vector<std::string_view>& extra_fields) {
  switch (root.kind) {
    case NodeKind::kIdent: {
      if (charge_root) charge(1);
      const Value* value = lookup(root.name, scope);
      return value ? *value : missing_attribute(root.name);
    }
    case NodeKind::kQualifiedIdent: {
      if (charge_root) charge(1);
      // The most qualified name that is a variable wins; the rest of the names select fields from it.
      for (std::size_t count = root.names.size(); count > 0; --count) {
        std::string name = join_prefix(root.names, count);
        if (const Value* value = lookup(name, scope)) {
          for (std::size_t i = count; i < root.names.size(); ++i) extra_fields.push_back(root.names[i]);
          return *value;
        }
        if (count == root.names.size()) {
          if (auto type = type_value_named(env_, name)) return Value(*type);
        }
      }
      return missing_attribute(join_prefix(root.names, root.names.size()));
    }
    case NodeKind::kConditional:
      return eval_conditional(root, scope, false);
    default: {
      Value value = eval(root, scope);
      if (charge_root) charge(1);
      return value;
    }
  }
}

Value Evaluator::eval_attribute(const Node& node, Scope* scope, bool charge_root) {
  const bool test_only = node.kind == NodeKind::kSelect && node.test_only;
  std::vector<const Node*> qualifiers;
  const Node* root = &node;
  while ((root->kind == NodeKind::kSelect && (!root->test_only || root == &node)) ||
         root->kind == NodeKind::kIndex) {
    qualifiers.push_back(root);
    root = &root->children[0];
  }
  std::reverse(qualifiers.begin(), qualifiers.end());

  // A presence test charges its qualifiers, not the root of the attribute it tests; itself only with cel-go's
  // default PresenceTestHasCost(true) (kube turns it off).
  if (test_only && presence_test_has_cost_) charge(1);
  std::vector<std::string_view> extra_fields;
  Value obj = eval_root(*root, scope, charge_root && !test_only, extra_fields);
  if (obj.is_error()) return obj;

  bool optional_chain = false;
  if (const auto* optional = obj.get_if<OptionalValue>()) {
    if (!optional->has_value()) return test_only ? Value(false) : obj;
    optional_chain = true;
    Value inner = *optional->value;
    obj = std::move(inner);
  }

  auto step = [&](const Value& key, bool last) -> std::optional<Value> {
    bool present = true;
    bool presence_test = optional_chain || (test_only && last);
    Value next = qualify(obj, key, presence_test, &present);
    if (next.is_error()) return next;
    if (test_only && last) return Value(present);
    if (!present) return test_only ? Value(false) : Value::optional_none();
    obj = std::move(next);
    return std::nullopt;
  };

  for (std::size_t i = 0; i < extra_fields.size(); ++i) {
    charge(1);
    bool last = qualifiers.empty() && i + 1 == extra_fields.size();
    if (auto done = step(Value(std::string(extra_fields[i])), last)) return *done;
  }
  for (const Node* qualifier : qualifiers) {
    Value key;
    if (qualifier->kind == NodeKind::kSelect) {
      key = Value(qualifier->name);
      charge(1);
    } else {
      const Node& index = qualifier->children[1];
      key = eval(index, scope);
      if (!is_attribute(index)) charge(1);
      if (key.is_error()) return key;
    }
    optional_chain = optional_chain || qualifier->optional_access;
    if (auto done = step(key, qualifier == qualifiers.back())) return *done;
  }
  return optional_chain ? Value::optional_of(std::move(obj)) : obj;
}

Value Evaluator::eval_and_or(const Node& node, Scope* scope, bool is_and) {
  std::optional<Value> error;
  for (const Node& term : node.children) {
    Value value = eval(term, scope);
    if (const bool* b = value.get_if<bool>()) {
      if (*b != is_and) return Value(*b);
      continue;
    }
    if (!error) error = value.is_error() ? value : no_such_overload_bare();
  }
  if (error) return *error;
  return Value(is_and);
}

Value Evaluator::eval_conditional(const Node& node, Scope* scope, bool charge_branch_roots) {
  Value condition = eval(node.children[0], scope);
  const bool* b = condition.get_if<bool>();
  if (!b) return condition.is_error() ? condition : no_such_overload_bare();
  const Node& branch = node.children[*b ? 1 : 2];
  // cel-go resolves the branches as attributes of the conditional, so a branch's root variable is not observed.
  if (is_attribute(branch)) return eval_attribute(branch, scope, charge_branch_roots);
  return eval(branch, scope);
}

Value Evaluator::eval_equality(const Node& node, Scope* scope, bool negate) {
  Value args[2] = {eval(node.children[0], scope), eval(node.children[1], scope)};
  Value result;
  if (args[0].is_error()) {
    result = args[0];
  } else if (args[1].is_error()) {
    result = args[1];
  } else {
    result = Value(equals(args[0], args[1]) != negate);
  }
  charge(call_cost(node.cost_rule, args, result));
  return result;
}

Value Evaluator::append_in_place(const Value& accumulated, const List& tail) {
  const AccumulatorList& accumulator = *as_accumulator(accumulated);
  std::shared_ptr<std::vector<Value>> items = accumulator.items();
  if (items->size() != accumulator.size()) {
    // Another view already grew the vector past this one: branch off with a copy.
    items = std::make_shared<std::vector<Value>>(items->begin(),
                                                 items->begin() + static_cast<std::ptrdiff_t>(accumulator.size()));
  }
  for (std::size_t i = 0; i < tail.size(); ++i) items->push_back(tail.at(i));
  std::size_t length = items->size();
  return Value(std::shared_ptr<const List>(
      std::make_shared<const AccumulatorList>(std::move(items), length, accumulator_owner_)));
}

Value Evaluator::eval_call(const Node& node, Scope* scope) {
  const std::size_t argc = node.children.size();
  const bool strict = std::none_of(node.overloads.begin(), node.overloads.end(),
                                   [](const Overload* o) { return o->non_strict; });
  std::vector<Value> args;
  args.reserve(argc);
  for (const Node& child : node.children) {
    args.push_back(eval(child, scope));
    // cel-go stops at the first error of a call with three or more arguments (evalVarArgs) without observing it.
    if (strict && argc > 2 && args.back().is_error()) return args.back();
  }

  auto result_of = [&]() -> Value {
    if (strict) {
      for (const Value& arg : args) {
        if (arg.is_error()) return arg;
      }
    }
    if (node.overloads.empty()) {
      return Value::error(ErrorCode::kNoSuchOverload, "no such overload: " + node.name);
    }
    if (node.name == "_+_" && argc == 2) {
      const AccumulatorList* accumulator = as_accumulator(args[0]);
      const List* tail = args[1].as_list();
      if (accumulator && tail && accumulator->owner() == accumulator_owner_.get()) {
        return append_in_place(args[0], *tail);
      }
    }
    for (const Overload* overload : node.overloads) {
      if (!overload->impl) continue;
      bool applies = true;
      for (std::size_t i = 0; i < argc && applies; ++i) {
        applies = args[i].is_error() ? overload->non_strict : runtime_type_matches(overload->params[i], args[i]);
      }
      if (applies) return overload->impl(args);
    }
    for (const Value& arg : args) {
      if (arg.is_error()) return arg;
    }
    if (node.no_overload_message == Node::NoOverloadMessage::kBare) return no_such_overload_bare();
    if (node.no_overload_message == Node::NoOverloadMessage::kTraitGuarded) {
      const std::vector<Overload>& all = node.function->overloads;
      bool has_trait = std::any_of(all.begin(), all.end(), [&](const Overload& o) {
        return !o.params.empty() && runtime_type_matches(o.params[0], args[0]);
      });
      if (has_trait) return no_such_overload_bare();
      return Value::error(ErrorCode::kNoSuchOverload, "no such overload: " + node.name);
    }
    std::string signature;
    for (const Value& arg : args) {
      if (!signature.empty()) signature += ", ";
      signature += arg.type_name();
    }
    return Value::error(ErrorCode::kNoSuchOverload, "no such overload: " + node.name + "(" + signature + ")");
  };
  Value result = result_of();
  charge(call_cost(node.cost_rule, args, result));
  return result;
}

Value Evaluator::eval_list(const Node& node, Scope* scope) {
  std::vector<Value> elements;
  elements.reserve(node.children.size());
  Value result;
  for (std::size_t i = 0; i < node.children.size(); ++i) {
    Value element = eval(node.children[i], scope);
    if (element.is_error()) {
      result = element;
      break;
    }
    if (node.optional_entries[i]) {
      const auto* optional = element.get_if<OptionalValue>();
      if (!optional) {
        result = Value::error(ErrorCode::kGeneric,
                              "cannot initialize optional list element from non-optional value " +
                                  debug_string(element));
        break;
      }
      if (!optional->has_value()) continue;
      Value inner = *optional->value;
      element = std::move(inner);
    }
    elements.push_back(std::move(element));
  }
  if (!result.is_error()) result = Value::list(std::move(elements));
  charge(10);
  return result;
}

Value Evaluator::eval_map(const Node& node, Scope* scope) {
  std::vector<std::pair<Value, Value>> entries;
  entries.reserve(node.children.size() / 2);
  Value result;
  for (std::size_t i = 0; i + 1 < node.children.size() && !result.is_error(); i += 2) {
    Value key = eval(node.children[i], scope);
    if (key.is_error()) {
      result = key;
      break;
    }
    Value value = eval(node.children[i + 1], scope);
    if (value.is_error()) {
      result = value;
      break;
    }
    // cel-go keeps map literals in a Go map: any hashable value is a key (the checker limits the types); lists,
    // maps and bytes are not hashable there.
    if (key.as_list() || key.as_map() || key.is<Bytes>() || key.is<OptionalValue>() ||
        key.is<std::shared_ptr<const Opaque>>()) {
      result = Value::error(ErrorCode::kGeneric, "unsupported key type");
      break;
    }
    // Keys are distinct by type and value, as in cel-go's Go map of ref.Val (1 and 1u are two keys).
    auto existing = std::find_if(entries.begin(), entries.end(), [&](const auto& entry) {
      return entry.first.variant().index() == key.variant().index() && equals(entry.first, key);
    });
    if (node.optional_entries[i / 2]) {
      const auto* optional = value.get_if<OptionalValue>();
      if (!optional) {
        result = Value::error(ErrorCode::kGeneric, "cannot initialize optional entry '" + debug_string(key) +
                                                       "' from non-optional value " + debug_string(value));
        break;
      }
      if (!optional->has_value()) {
        if (existing != entries.end()) entries.erase(existing);
        continue;
      }
      Value inner = *optional->value;
      value = std::move(inner);
    }
    if (existing != entries.end()) {
      existing->second = std::move(value);
    } else {
      entries.emplace_back(std::move(key), std::move(value));
    }
  }
  if (!result.is_error()) result = Value::map(std::move(entries));
  charge(30);
  return result;
}

Value Evaluator::eval_fold(const Node& node, Scope* scope) {
  Value range = eval(node.children[0], scope);
  if (range.is_error()) return range;
  const List* list = range.as_list();
  const Map* map = range.as_map();
  const bool two_variables = !node.iter_var2.empty();
  if (!list && !map) {
    if (two_variables) {
      return Value::error(ErrorCode::kGeneric, "unsupported comprehension range type: " + go_type_name(range));
    }
    return Value::error(ErrorCode::kGeneric, "got '" + go_type_name(range) + "', expected iterable type");
  }
  Scope inner;
  inner.parent = scope;
  inner.fold = &node;
  const std::size_t size = list ? list->size() : map->size();
  for (std::size_t i = 0; i < size; ++i) {
    // One variable: the element or the key. Two: the index and the element, or the key and the value.
    Value item, second;
    if (list && two_variables) {
      item = Value(static_cast<std::int64_t>(i));
      second = list->at(i);
    } else if (list) {
      item = list->at(i);
    } else {
      item = map->key_at(i);
      if (two_variables) second = map->find(item).value_or(Value());
    }
    inner.iter_value = &item;
    inner.iter_value2 = &second;
    Value condition = eval(node.children[2], &inner);
    if (const bool* b = condition.get_if<bool>(); b && !*b) break;
    Value next = eval(node.children[3], &inner);
    inner.accu = std::move(next);
  }
  inner.iter_value = nullptr;
  inner.iter_value2 = nullptr;
  inner.computing_result = true;
  return freeze(eval(node.children[4], &inner));
}

}  // namespace kapi::cel::interp
