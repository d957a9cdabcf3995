// Macro expansion as cel-go v0.22 does it: parser/macro.go (has, all, exists, exists_one, map, filter),
// cel/library.go (optMap, optFlatMap of the optional library), ext/comprehensions.go (the two-variable all,
// exists, existsOne, exists_one, transformList, transformMap, transformMapEntry) and ext/bindings.go (cel.bind).
// Node ids are handed out in the order cel-go's expanders create nodes, so ids match cel-go's.
#include <algorithm>

#include "cel/operators.h"
#include "cel/parser/builder.h"

namespace kapi::cel::parser {
namespace {

namespace op = kapi::cel::operators;

constexpr std::string_view kUnusedIterVar = "#unused";

// The ids a copy of e takes (its nodes, map entries and struct fields), counted no further than just past `limit`.
std::int64_t copy_size(const Expr& e, std::int64_t limit) {
  std::int64_t size = 0;
  std::vector<const Expr*> pending{&e};
  auto push = [&pending](const std::unique_ptr<Expr>& child) {
    if (child) pending.push_back(child.get());
  };
  while (!pending.empty() && size <= limit) {
    const Expr& next = *pending.back();
    pending.pop_back();
    ++size;
    if (const auto* select = std::get_if<SelectExpr>(&next.kind)) {
      push(select->operand);
    } else if (const auto* call = std::get_if<CallExpr>(&next.kind)) {
      push(call->target);
      for (const Expr& arg : call->args) pending.push_back(&arg);
    } else if (const auto* list = std::get_if<ListExpr>(&next.kind)) {
      for (const Expr& element : list->elements) pending.push_back(&element);
    } else if (const auto* map = std::get_if<MapExpr>(&next.kind)) {
      for (const MapEntry& entry : map->entries) {
        ++size;
        push(entry.key);
        push(entry.value);
      }
    } else if (const auto* message = std::get_if<StructExpr>(&next.kind)) {
      for (const StructField& field : message->fields) {
        ++size;
        push(field.value);
      }
    } else if (const auto* fold = std::get_if<ComprehensionExpr>(&next.kind)) {
      for (const auto* child :
           {&fold->iter_range, &fold->accu_init, &fold->loop_condition, &fold->loop_step, &fold->result})
        push(*child);
    }
  }
  return size;
}

// cel-go's exprHelper: creates the expansion's nodes at the macro call's position.
class MacroHelper {
 public:
  MacroHelper(Builder& builder, std::int64_t call_id) : builder_(builder), offset_(builder.offset_of(call_id)) {}

  std::int64_t next_id() { return builder_.new_id(offset_); }

  Expr literal(Constant value) { return Builder::constant(next_id(), std::move(value)); }
  Expr list(std::vector<Expr> elements = {}) { return Expr{next_id(), ListExpr{std::move(elements), {}}}; }
  Expr ident(std::string name) { return Builder::ident(next_id(), std::move(name)); }
  Expr accu_ident() { return ident(std::string(kAccumulatorName)); }
  Expr call(std::string_view function, std::vector<Expr> args) {
    return Builder::call(next_id(), std::string(function), std::move(args));
  }
  Expr member_call(std::string_view function, Expr target, std::vector<Expr> args = {}) {
    return Builder::member_call(next_id(), std::string(function), std::move(target), std::move(args));
  }
  Expr presence_test(Expr operand, std::string field) {
    return Builder::select(next_id(), std::move(operand), std::move(field), true);
  }
  Expr map() { return Expr{next_id(), MapExpr{}}; }
  Expr comprehension(std::string iter_var, Expr iter_range, std::string accu_var, Expr accu_init, Expr condition,
                     Expr step, Expr result, std::string iter_var2 = {}) {
    return Builder::comprehension(next_id(), std::move(iter_var), std::move(iter_range), std::move(accu_var),
                                  std::move(accu_init), std::move(condition), std::move(step), std::move(result),
                                  std::move(iter_var2));
  }

  // copy(e) when the parse's copies stay within `budget` nodes (none when negative), else nothing.
  std::optional<Expr> copy_within(const Expr& e, std::int64_t budget) {
    if (budget < 0) return copy(e);
    const std::int64_t allowance = budget - builder_.copied_nodes();
    const std::int64_t size = copy_size(e, allowance);
    if (size > allowance) return std::nullopt;
    builder_.add_copied_nodes(size);
    return copy(e);
  }

  // A deep copy with fresh ids, each at its original's position (entries take the macro's position).
  Expr copy(const Expr& e) {
    const std::int64_t id = builder_.new_id(builder_.offset_of(e.id));
    return Expr{id, std::visit([&](const auto& kind) { return copy_kind(kind); }, e.kind)};
  }

 private:
  using Kind = decltype(Expr::kind);
  std::unique_ptr<Expr> copy_ptr(const std::unique_ptr<Expr>& e) {
    return e ? std::make_unique<Expr>(copy(*e)) : nullptr;
  }
  Kind copy_kind(const std::monostate&) { return std::monostate{}; }
  Kind copy_kind(const Constant& c) { return c; }
  Kind copy_kind(const IdentExpr& i) { return i; }
  Kind copy_kind(const SelectExpr& s) { return SelectExpr{copy_ptr(s.operand), s.field, s.test_only}; }
  Kind copy_kind(const CallExpr& c) {
    std::vector<Expr> args;
    for (const Expr& a : c.args) args.push_back(copy(a));
    return CallExpr{copy_ptr(c.target), c.function, std::move(args)};
  }
  Kind copy_kind(const ListExpr& l) {
    std::vector<Expr> elements;
    for (const Expr& e : l.elements) elements.push_back(copy(e));
    return ListExpr{std::move(elements), l.optional_indices};
  }
  Kind copy_kind(const MapExpr& m) {
    MapExpr out;
    for (const MapEntry& entry : m.entries) {
      std::int64_t entry_id = next_id();
      auto key = copy_ptr(entry.key);
      auto value = copy_ptr(entry.value);
      out.entries.push_back(MapEntry{entry_id, std::move(key), std::move(value), entry.optional});
    }
    return out;
  }
  Kind copy_kind(const StructExpr& s) {
    StructExpr out{s.message_name, {}};
    for (const StructField& field : s.fields) {
      std::int64_t field_id = next_id();
      out.fields.push_back(StructField{field_id, field.name, copy_ptr(field.value), field.optional});
    }
    return out;
  }
  Kind copy_kind(const ComprehensionExpr& c) {
    auto range = copy_ptr(c.iter_range);
    auto init = copy_ptr(c.accu_init);
    auto condition = copy_ptr(c.loop_condition);
    auto step = copy_ptr(c.loop_step);
    auto result = copy_ptr(c.result);
    return ComprehensionExpr{c.iter_var,           std::move(range), c.accu_var,        std::move(init),
                             std::move(condition), std::move(step),  std::move(result), c.iter_var2};
  }

  Builder& builder_;
  std::int32_t offset_;
};

MacroResult failure(const Expr& blamed, std::string message) {
  return MacroResult{std::nullopt, MacroError{blamed.id, std::move(message)}};
}

template <typename... Exprs>
std::vector<Expr> vector_of(Exprs&&... exprs) {
  std::vector<Expr> out;
  out.reserve(sizeof...(exprs));
  (out.push_back(std::forward<Exprs>(exprs)), ...);
  return out;
}

const std::string* ident_name(const Expr& e) {
  const auto* ident = std::get_if<IdentExpr>(&e.kind);
  return ident ? &ident->name : nullptr;
}

MacroResult expand_has(MacroHelper& h, std::vector<Expr>& args) {
  auto* select = std::get_if<SelectExpr>(&args[0].kind);
  if (!select) return failure(args[0], "invalid argument to has() macro");
  return {h.presence_test(std::move(*select->operand), std::move(select->field)), std::nullopt};
}

enum class Quantifier { kAll, kExists, kExistsOne };

// The iteration variables of a two-variable macro (ext/comprehensions.go extractIterVars), or the error.
std::optional<MacroError> two_iteration_variables(const std::vector<Expr>& args, std::string& first,
                                                  std::string& second) {
  const std::string* a = ident_name(args[0]);
  if (!a) return MacroError{args[0].id, "argument must be a simple name"};
  const std::string* b = ident_name(args[1]);
  if (!b) return MacroError{args[1].id, "argument must be a simple name"};
  if (*a == *b) return MacroError{args[1].id, "duplicate variable name: " + *a};
  // cel-go v0.22's accumulator is named __result__ (kapi's cannot be written, but the refusal stays).
  if (*a == "__result__") return MacroError{args[0].id, "iteration variable overwrites accumulator variable"};
  if (*b == "__result__") return MacroError{args[1].id, "iteration variable overwrites accumulator variable"};
  first = *a;
  second = *b;
  return std::nullopt;
}

// all, exists, exists_one with one iteration variable (parser/macro.go) or two (ext/comprehensions.go): the
// same fold, the predicate last.
MacroResult expand_quantifier(Quantifier kind, MacroHelper& h, Expr target, std::vector<Expr>& args) {
  std::string var, var2;
  if (args.size() == 3) {
    if (auto error = two_iteration_variables(args, var, var2)) return MacroResult{std::nullopt, std::move(error)};
  } else {
    const std::string* name = ident_name(args[0]);
    if (!name) return failure(args[0], "argument must be a simple name");
    var = *name;
  }
  Expr& predicate = args.back();
  std::optional<Expr> init, condition, step, result;
  switch (kind) {
    case Quantifier::kAll: {
      init = h.literal(true);
      Expr accu = h.accu_ident();
      condition = h.call(op::kNotStrictlyFalse, vector_of(std::move(accu)));
      Expr step_accu = h.accu_ident();
      step = h.call(op::kLogicalAnd, vector_of(std::move(step_accu), std::move(predicate)));
      result = h.accu_ident();
      break;
    }
    case Quantifier::kExists: {
      init = h.literal(false);
      Expr accu = h.accu_ident();
      Expr negated = h.call(op::kLogicalNot, vector_of(std::move(accu)));
      condition = h.call(op::kNotStrictlyFalse, vector_of(std::move(negated)));
      Expr step_accu = h.accu_ident();
      step = h.call(op::kLogicalOr, vector_of(std::move(step_accu), std::move(predicate)));
      result = h.accu_ident();
      break;
    }
    case Quantifier::kExistsOne: {
      init = h.literal(std::int64_t{0});
      condition = h.literal(true);
      Expr accu = h.accu_ident();
      Expr one = h.literal(std::int64_t{1});
      Expr incremented = h.call(op::kAdd, vector_of(std::move(accu), std::move(one)));
      Expr unchanged = h.accu_ident();
      step = h.call(op::kConditional, vector_of(std::move(predicate), std::move(incremented), std::move(unchanged)));
      Expr final_accu = h.accu_ident();
      Expr final_one = h.literal(std::int64_t{1});
      result = h.call(op::kEquals, vector_of(std::move(final_accu), std::move(final_one)));
      break;
    }
  }
  return {h.comprehension(std::move(var), std::move(target), std::string(kAccumulatorName), std::move(*init),
                          std::move(*condition), std::move(*step), std::move(*result), std::move(var2)),
          std::nullopt};
}

enum class Transform { kList, kMap, kMapEntry };

// transformList, transformMap, transformMapEntry (ext/comprehensions.go): the step is built first, then the fold.
MacroResult expand_transform(Transform kind, MacroHelper& h, Expr target, std::vector<Expr>& args) {
  std::string var, var2;
  if (auto error = two_iteration_variables(args, var, var2)) return MacroResult{std::nullopt, std::move(error)};
  std::optional<Expr> filter;
  Expr* transform = &args[2];
  if (args.size() == 4) {
    filter = std::move(args[2]);
    transform = &args[3];
  }
  constexpr std::string_view kMapInsert = "cel.@mapInsert";
  std::optional<Expr> step;
  Expr accu = h.accu_ident();
  switch (kind) {
    case Transform::kList: {
      Expr element = h.list(vector_of(std::move(*transform)));
      step = h.call(op::kAdd, vector_of(std::move(accu), std::move(element)));
      break;
    }
    case Transform::kMap: {
      Expr key = h.ident(var);
      step = h.call(kMapInsert, vector_of(std::move(accu), std::move(key), std::move(*transform)));
      break;
    }
    case Transform::kMapEntry: step = h.call(kMapInsert, vector_of(std::move(accu), std::move(*transform))); break;
  }
  if (filter) {
    Expr unchanged = h.accu_ident();
    step = h.call(op::kConditional, vector_of(std::move(*filter), std::move(*step), std::move(unchanged)));
  }
  Expr init = kind == Transform::kList ? h.list() : h.map();
  Expr condition = h.literal(true);
  Expr result = h.accu_ident();
  return {h.comprehension(std::move(var), std::move(target), std::string(kAccumulatorName), std::move(init),
                          std::move(condition), std::move(*step), std::move(result), std::move(var2)),
          std::nullopt};
}

MacroResult expand_map(MacroHelper& h, Expr target, std::vector<Expr>& args) {
  const std::string* var = ident_name(args[0]);
  if (!var) return failure(args[0], "argument is not an identifier");
  std::optional<Expr> filter;
  Expr* transform = &args[1];
  if (args.size() == 3) {
    filter = std::move(args[1]);
    transform = &args[2];
  }
  Expr init = h.list();
  Expr condition = h.literal(true);
  Expr accu = h.accu_ident();
  Expr wrapped = h.list(vector_of(std::move(*transform)));
  Expr step = h.call(op::kAdd, vector_of(std::move(accu), std::move(wrapped)));
  if (filter) {
    Expr unchanged = h.accu_ident();
    step = h.call(op::kConditional, vector_of(std::move(*filter), std::move(step), std::move(unchanged)));
  }
  Expr result = h.accu_ident();
  return {h.comprehension(*var, std::move(target), std::string(kAccumulatorName), std::move(init), std::move(condition),
                          std::move(step), std::move(result)),
          std::nullopt};
}

MacroResult expand_filter(MacroHelper& h, Expr target, std::vector<Expr>& args) {
  const std::string* found = ident_name(args[0]);
  if (!found) return failure(args[0], "argument is not an identifier");
  std::string var = *found;
  Expr init = h.list();
  Expr condition = h.literal(true);
  Expr accu = h.accu_ident();
  Expr element = h.list(vector_of(std::move(args[0])));
  Expr appended = h.call(op::kAdd, vector_of(std::move(accu), std::move(element)));
  Expr unchanged = h.accu_ident();
  Expr step = h.call(op::kConditional, vector_of(std::move(args[1]), std::move(appended), std::move(unchanged)));
  Expr result = h.accu_ident();
  return {h.comprehension(std::move(var), std::move(target), std::string(kAccumulatorName), std::move(init),
                          std::move(condition), std::move(step), std::move(result)),
          std::nullopt};
}

// optMap / optFlatMap: target.hasValue() ? [optional.of](bind var = target.value() in expr) : optional.none()
//
// The target appears twice, so each link of a chain `x.optMap(...).optMap(...)` doubles the tree, and cel-go v0.22
// takes time and memory exponential in the chain's length (later cel-go versions bind the target instead; a
// 320-character chain of 18 links took minutes and gigabytes). kapi keeps v0.22's expansion, which kube's ids and
// costs follow, but copies at most `copy_budget` nodes in a parse, as many as the expression may have code points:
// a chain of a dozen links, far beyond any real rule.
MacroResult expand_opt_map(MacroHelper& h, Expr target, std::vector<Expr>& args, bool flat, std::int64_t copy_budget) {
  const std::string_view name = flat ? "optFlatMap" : "optMap";
  const std::string* var = ident_name(args[0]);
  if (!var) return failure(args[0], std::string(name) + "() variable name must be a simple identifier");
  // cel-go creates the hasValue() call, then the empty range, then copies the target for value().
  const std::int64_t has_value_id = h.next_id();
  Expr range = h.list();
  std::optional<Expr> copied_target = h.copy_within(target, copy_budget);
  if (!copied_target) {
    return failure(target, "expression size exceeds limit after expanding " + std::string(name) +
                               "(): more than " + std::to_string(copy_budget) + " nodes copied");
  }
  Expr value = h.member_call("value", std::move(*copied_target));
  Expr has_value = Builder::member_call(has_value_id, "hasValue", std::move(target), {});
  Expr condition = h.literal(false);
  Expr step = h.ident(*var);
  Expr fold = h.comprehension(std::string(kUnusedIterVar), std::move(range), *var, std::move(value),
                              std::move(condition), std::move(step), std::move(args[1]));
  if (!flat) fold = h.call("optional.of", vector_of(std::move(fold)));
  Expr none = h.call("optional.none", {});
  return {h.call(op::kConditional, vector_of(std::move(has_value), std::move(fold), std::move(none))), std::nullopt};
}

// cel.bind(var, init, expr): a fold over nothing whose accumulator is the bound variable.
std::optional<MacroResult> expand_bind(MacroHelper& h, std::optional<Expr>& target, std::vector<Expr>& args) {
  const std::string* ns = target ? ident_name(*target) : nullptr;
  if (!ns || *ns != "cel") return std::nullopt;
  const std::string* var = ident_name(args[0]);
  if (!var) return failure(args[0], "cel.bind() variable names must be simple identifiers");
  Expr range = h.list();
  Expr condition = h.literal(false);
  Expr step = h.ident(*var);
  return MacroResult{h.comprehension(std::string(kUnusedIterVar), std::move(range), *var, std::move(args[1]),
                                     std::move(condition), std::move(step), std::move(args[2])),
                     std::nullopt};
}

bool library_macro_enabled(const ParserOptions& options, std::string_view name) {
  return std::find(options.extra_macros.begin(), options.extra_macros.end(), name) != options.extra_macros.end();
}

}  // namespace

std::optional<MacroResult> expand_macro(Builder& builder, const ParserOptions& options, std::int64_t call_id,
                                        std::string_view function, std::optional<Expr>& target,
                                        std::vector<Expr>& args) {
  const std::size_t argc = args.size();
  const bool receiver = target.has_value();
  MacroHelper h(builder, call_id);
  if (!receiver) {
    if (function == op::kHas && argc == 1) return expand_has(h, args);
    return std::nullopt;
  }
  auto enabled = [&](std::string_view name) { return library_macro_enabled(options, name); };
  if (argc == 2) {
    if (function == op::kAll) return expand_quantifier(Quantifier::kAll, h, std::move(*target), args);
    if (function == op::kExists) return expand_quantifier(Quantifier::kExists, h, std::move(*target), args);
    if (function == op::kExistsOne) return expand_quantifier(Quantifier::kExistsOne, h, std::move(*target), args);
    if (function == op::kFilter) return expand_filter(h, std::move(*target), args);
    const std::int64_t copy_budget = expression_size_limit(options);
    if (function == "optMap" && enabled("optMap")) {
      return expand_opt_map(h, std::move(*target), args, false, copy_budget);
    }
    if (function == "optFlatMap" && enabled("optFlatMap")) {
      return expand_opt_map(h, std::move(*target), args, true, copy_budget);
    }
  }
  if (function == op::kMap && (argc == 2 || argc == 3)) return expand_map(h, std::move(*target), args);
  // ext.TwoVarComprehensions.
  if (argc == 3 && enabled(function)) {
    if (function == op::kAll) return expand_quantifier(Quantifier::kAll, h, std::move(*target), args);
    if (function == op::kExists) return expand_quantifier(Quantifier::kExists, h, std::move(*target), args);
    if (function == op::kExistsOne || function == "existsOne") {
      return expand_quantifier(Quantifier::kExistsOne, h, std::move(*target), args);
    }
  }
  if ((argc == 3 || argc == 4) && enabled(function)) {
    if (function == "transformList") return expand_transform(Transform::kList, h, std::move(*target), args);
    if (function == "transformMap") return expand_transform(Transform::kMap, h, std::move(*target), args);
    if (function == "transformMapEntry") return expand_transform(Transform::kMapEntry, h, std::move(*target), args);
  }
  if (function == "bind" && argc == 3 && (enabled("cel.bind") || enabled("bind"))) {
    return expand_bind(h, target, args);
  }
  return std::nullopt;
}

}  // namespace kapi::cel::parser
