// The static cost estimate: cel-go v0.22's checker/cost.go tree walk (costs per node kind, field paths, sizes of
// literals and of call results, comprehensions multiplied by their range's size), with the size look-ups kube
// configures (library.CostEstimator over a SizeEstimator).
#include <string>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include "base/utf8.h"
#include "cel/cost/estimate_parts.h"

namespace kapi::cel {
namespace cost_internal {
namespace {

std::uint64_t count_code_points(std::string_view text) {
  std::uint64_t count = 0;
  while (!text.empty()) {
    text.remove_prefix(base::decode_rune(text).width);
    ++count;
  }
  return count;
}

bool is_fixed_size_scalar(const Type& type) {
  switch (type.kind()) {
    case TypeKind::kBool:
    case TypeKind::kDouble:
    case TypeKind::kDuration:
    case TypeKind::kInt:
    case TypeKind::kTimestamp:
    case TypeKind::kUint: return true;
    default: return false;
  }
}

}  // namespace

std::optional<SizeEstimate> Node::computed_size() const {
  if (derived_size) return derived_size;
  if (expr == nullptr) return std::nullopt;
  auto exact = [](std::uint64_t n) { return SizeEstimate{n, n}; };
  if (const auto* constant = std::get_if<Constant>(&expr->kind)) {
    if (const auto* text = std::get_if<std::string>(constant)) return exact(count_code_points(*text));
    if (const auto* bytes = std::get_if<BytesLiteral>(constant)) return exact(bytes->bytes.size());
    return exact(1);  // bool, int, uint, double, null
  }
  if (const auto* list = std::get_if<ListExpr>(&expr->kind)) return exact(list->elements.size());
  if (const auto* map = std::get_if<MapExpr>(&expr->kind)) return exact(map->entries.size());
  return std::nullopt;
}

std::optional<SizeEstimate> Sizes::estimate(const Node& node) const {
  if (options_.sizes && node.expr != nullptr) {
    if (auto max = options_.sizes(ast_, node.expr->id)) return SizeEstimate{0, *max};
  }
  if (options_.node_sizes) {
    SizeQuery query{&ast_, node.expr, node.path, node.type};
    if (auto size = options_.node_sizes(query)) return size;
  }
  if (options_.type_size_hints && node.type != nullptr) {
    if (auto max = node.type->max_elements()) return SizeEstimate{0, *max};
  }
  return std::nullopt;
}

SizeEstimate Sizes::size_or_scalar(const Node& node) const {
  if (auto computed = node.computed_size()) return *computed;
  if (auto estimated = estimate(node)) return *estimated;
  if (node.type != nullptr && is_fixed_size_scalar(*node.type)) return {1, 1};
  return {0, kUnbounded};
}

SizeEstimate Sizes::size(const Node& node) const {
  if (auto computed = node.computed_size()) return *computed;
  if (auto estimated = estimate(node)) return *estimated;
  return {0, kUnbounded};
}

std::optional<Node> Sizes::list_element(const Node& list) const {
  if (list.type == nullptr || list.type->parameters().empty()) return std::nullopt;
  Node element;
  element.type = &list.type->parameters().front();
  if (!list.path.empty()) {
    element.path = list.path;
    element.path.push_back("@items");
  }
  return element;
}

namespace {

using Path = std::vector<std::string>;

class Coster {
 public:
  Coster(const CheckedAst& ast, const CostOptions& options) : ast_(ast), options_(options), sizes_(ast, options) {}

  CostEstimate cost(const Expr& e) {
    return std::visit(
        [&](const auto& kind) -> CostEstimate {
          using Kind = std::decay_t<decltype(kind)>;
          if constexpr (std::is_same_v<Kind, Constant>) {
            return {cost_units::kConst, cost_units::kConst};
          } else if constexpr (std::is_same_v<Kind, IdentExpr>) {
            return cost_ident(e, kind);
          } else if constexpr (std::is_same_v<Kind, SelectExpr>) {
            return cost_select(e, kind);
          } else if constexpr (std::is_same_v<Kind, CallExpr>) {
            return cost_call(e, kind);
          } else if constexpr (std::is_same_v<Kind, ListExpr>) {
            CostEstimate sum;
            for (const Expr& element : kind.elements) sum = add(sum, cost(element));
            return add(sum, {cost_units::kListCreateBase, cost_units::kListCreateBase});
          } else if constexpr (std::is_same_v<Kind, MapExpr>) {
            CostEstimate sum;
            for (const MapEntry& entry : kind.entries) {
              if (entry.key) sum = add(sum, cost(*entry.key));
              if (entry.value) sum = add(sum, cost(*entry.value));
            }
            return add(sum, {cost_units::kMapCreateBase, cost_units::kMapCreateBase});
          } else if constexpr (std::is_same_v<Kind, StructExpr>) {
            CostEstimate sum;
            for (const StructField& field : kind.fields) {
              if (field.value) sum = add(sum, cost(*field.value));
            }
            return add(sum, {cost_units::kStructCreateBase, cost_units::kStructCreateBase});
          } else if constexpr (std::is_same_v<Kind, ComprehensionExpr>) {
            return cost_comprehension(e, kind);
          } else {
            return {};
          }
        },
        e.kind);
  }

 private:
  static constexpr CostEstimate kSelectAndIdent{cost_units::kSelectAndIdent, cost_units::kSelectAndIdent};

  const Reference* reference(std::int64_t id) const {
    auto it = ast_.references.find(id);
    return it == ast_.references.end() ? nullptr : &it->second;
  }

  const Path* path_of(const Expr& e) const {
    auto it = paths_.find(e.id);
    return it == paths_.end() ? nullptr : &it->second;
  }

  Path path_plus(const Expr& e, std::string element) const {
    Path path;
    if (const Path* base = path_of(e)) path = *base;
    path.push_back(std::move(element));
    return path;
  }

  // The variable or qualified name a node names, and the path it starts.
  CostEstimate cost_named(const Expr& e, const std::string& written_name, const std::string& resolved_name) {
    auto scope = iter_ranges_.find(written_name);
    if (scope != iter_ranges_.end() && !scope->second.empty()) {
      const Expr& range = *scope->second.back();
      const TypeKind range_kind = ast_.type_of(range.id).kind();
      if (range_kind == TypeKind::kList) {
        paths_[e.id] = path_plus(range, "@items");
      } else if (range_kind == TypeKind::kMap) {
        paths_[e.id] = path_plus(range, "@keys");
      }
    } else {
      paths_[e.id] = Path{resolved_name};
    }
    return kSelectAndIdent;
  }

  CostEstimate cost_ident(const Expr& e, const IdentExpr& ident) {
    const Reference* ref = reference(e.id);
    const std::string& resolved = ref != nullptr && !ref->name.empty() ? ref->name : ident.name;
    return cost_named(e, ident.name, resolved);
  }

  CostEstimate cost_select(const Expr& e, const SelectExpr& select) {
    // The checker resolved `a.b.c` to a qualified variable name: cel-go's checked AST holds an identifier there.
    if (const Reference* ref = reference(e.id); ref != nullptr && !ref->name.empty() && !select.test_only) {
      return cost_named(e, ref->name, ref->name);
    }
    if (!select.operand) return {};
    if (select.test_only) {
      const CostEstimate presence = options_.presence_test_has_cost ? kSelectAndIdent : CostEstimate{};
      return add(presence, cost(*select.operand));
    }
    CostEstimate sum = cost(*select.operand);
    switch (ast_.type_of(select.operand->id).kind()) {
      case TypeKind::kMap:
      case TypeKind::kObject:
      case TypeKind::kTypeParam: sum = add(sum, kSelectAndIdent); break;
      default: break;
    }
    paths_[e.id] = path_plus(*select.operand, select.field);
    return sum;
  }

  CostEstimate cost_call(const Expr& e, const CallExpr& call) {
    std::vector<CostEstimate> arg_costs;
    std::vector<Node> arg_nodes;
    arg_costs.reserve(call.args.size());
    arg_nodes.reserve(call.args.size());
    for (const Expr& arg : call.args) {
      arg_costs.push_back(cost(arg));
      arg_nodes.push_back(node(arg));
    }
    const Reference* ref = reference(e.id);
    if (ref == nullptr || ref->overload_ids.empty()) return {};

    CostEstimate sum;
    std::optional<Node> target;
    if (call.target) {
      sum = add(sum, cost(*call.target));
      target = node(*call.target);
    }
    CostEstimate function_estimate{kUnbounded, 0};
    std::optional<SizeEstimate> result_size;
    for (const std::string& overload : ref->overload_ids) {
      CallEstimate estimate = function_cost(sizes_, call.function, overload, target ? &*target : nullptr,
                                            arg_nodes, arg_costs);
      function_estimate = union_of(function_estimate, estimate.cost);
      if (estimate.result_size) {
        result_size = result_size ? union_of(*result_size, *estimate.result_size) : *estimate.result_size;
      }
      if (!call.args.empty() && overload == "index_list") paths_[e.id] = path_plus(call.args[0], "@items");
      if (!call.args.empty() && overload == "index_map") paths_[e.id] = path_plus(call.args[0], "@values");
    }
    if (result_size) computed_sizes_[e.id] = *result_size;
    return add(sum, function_estimate);
  }

  CostEstimate cost_comprehension(const Expr& e, const ComprehensionExpr& fold) {
    CostEstimate sum;
    if (fold.iter_range) sum = add(sum, cost(*fold.iter_range));
    if (fold.accu_init) sum = add(sum, cost(*fold.accu_init));

    if (fold.iter_range) iter_ranges_[fold.iter_var].push_back(fold.iter_range.get());
    const CostEstimate loop_cost = fold.loop_condition ? cost(*fold.loop_condition) : CostEstimate{};
    const CostEstimate step_cost = fold.loop_step ? cost(*fold.loop_step) : CostEstimate{};
    if (fold.iter_range) iter_ranges_[fold.iter_var].pop_back();
    if (fold.result) sum = add(sum, cost(*fold.result));

    const SizeEstimate range_count = fold.iter_range ? sizes_.size_or_scalar(node(*fold.iter_range)) : SizeEstimate{};
    computed_sizes_[e.id] = range_count;
    return add(sum, multiply_by_cost(range_count, add(step_cost, loop_cost)));
  }

  // cel-go's newAstNode: the accumulator's paths are not offered to size estimators.
  Node node(const Expr& e) const {
    Node result;
    result.expr = &e;
    result.type = &ast_.type_of(e.id);
    if (const Path* path = path_of(e); path != nullptr && !path->empty() && path->front() != kAccumulatorName) {
      result.path = *path;
    }
    if (auto it = computed_sizes_.find(e.id); it != computed_sizes_.end()) result.derived_size = it->second;
    return result;
  }

  const CheckedAst& ast_;
  const CostOptions& options_;
  Sizes sizes_;
  std::unordered_map<std::int64_t, Path> paths_;
  std::unordered_map<std::string, std::vector<const Expr*>> iter_ranges_;  // iteration variable -> ranges in scope
  std::unordered_map<std::int64_t, SizeEstimate> computed_sizes_;
};

}  // namespace
}  // namespace cost_internal

CostEstimate estimate_cost(const CheckedAst& ast, const Env& env, const CostOptions& options) {
  (void)env;  // every function's estimate is keyed by name and overload id, as cel-go's and kube's are
  return cost_internal::Coster(ast, options).cost(ast.root);
}

CostEstimate estimate_cost(const CheckedAst& ast, const Env& env, const SizeEstimator& sizes) {
  CostOptions options;
  options.sizes = sizes;
  return estimate_cost(ast, env, options);
}

}  // namespace kapi::cel
