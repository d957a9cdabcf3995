#include "cel/ast.h"

#include <algorithm>

namespace kapi::cel {
namespace {

std::unique_ptr<Expr> clone_ptr(const std::unique_ptr<Expr>& e) {
  return e ? std::make_unique<Expr>(e->clone()) : nullptr;
}

std::vector<Expr> clone_all(const std::vector<Expr>& exprs) {
  std::vector<Expr> out;
  out.reserve(exprs.size());
  for (const Expr& e : exprs) out.push_back(e.clone());
  return out;
}

struct Cloner {
  using Kind = decltype(Expr::kind);
  Kind operator()(const std::monostate&) const { return std::monostate{}; }
  Kind operator()(const Constant& c) const { return c; }
  Kind operator()(const IdentExpr& i) const { return i; }
  Kind operator()(const SelectExpr& s) const { return SelectExpr{clone_ptr(s.operand), s.field, s.test_only}; }
  Kind operator()(const CallExpr& c) const { return CallExpr{clone_ptr(c.target), c.function, clone_all(c.args)}; }
  Kind operator()(const ListExpr& l) const { return ListExpr{clone_all(l.elements), l.optional_indices}; }
  Kind operator()(const MapExpr& m) const {
    MapExpr out;
    for (const MapEntry& e : m.entries) out.entries.push_back({e.id, clone_ptr(e.key), clone_ptr(e.value), e.optional});
    return out;
  }
  Kind operator()(const StructExpr& s) const {
    StructExpr out{s.message_name, {}};
    for (const StructField& f : s.fields) out.fields.push_back({f.id, f.name, clone_ptr(f.value), f.optional});
    return out;
  }
  Kind operator()(const ComprehensionExpr& c) const {
    return ComprehensionExpr{c.iter_var,           clone_ptr(c.iter_range),     c.accu_var,
                             clone_ptr(c.accu_init), clone_ptr(c.loop_condition), clone_ptr(c.loop_step),
                             clone_ptr(c.result),    c.iter_var2};
  }
};

}  // namespace

Expr Expr::clone() const { return Expr{id, std::visit(Cloner{}, kind)}; }

std::optional<SourceInfo::Location> SourceInfo::location_of(std::int64_t id) const {
  auto it = positions.find(id);
  if (it == positions.end()) return std::nullopt;
  return location_at(it->second);
}

SourceInfo::Location SourceInfo::location_at(std::int32_t offset) const {
  // line_offsets[i] is where line i + 2 starts.
  auto after = std::upper_bound(line_offsets.begin(), line_offsets.end(), offset);
  auto line = static_cast<std::int32_t>(after - line_offsets.begin());
  std::int32_t line_start = line == 0 ? 0 : line_offsets[static_cast<std::size_t>(line - 1)];
  return Location{line + 1, offset - line_start};
}

const Type& CheckedAst::type_of(std::int64_t id) const {
  static const Type dyn;
  auto it = types.find(id);
  return it == types.end() ? dyn : it->second;
}

}  // namespace kapi::cel
