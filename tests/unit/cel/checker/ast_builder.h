#pragma once
// Builds ASTs by hand for checker tests that must not depend on the parser (ids count up from 1).
#include <initializer_list>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "cel/ast.h"

namespace kapi::cel::testing {

class AstBuilder {
 public:
  Expr lit(Constant c) { return Expr{next_id_++, std::move(c)}; }
  Expr ident(std::string name) { return Expr{next_id_++, IdentExpr{std::move(name)}}; }
  Expr select(Expr operand, std::string field, bool test_only = false) {
    return Expr{next_id_++, SelectExpr{std::make_unique<Expr>(std::move(operand)), std::move(field), test_only}};
  }
  Expr call(std::string function, std::vector<Expr> args) {
    return Expr{next_id_++, CallExpr{nullptr, std::move(function), std::move(args)}};
  }
  Expr member(Expr target, std::string function, std::vector<Expr> args) {
    return Expr{next_id_++,
                CallExpr{std::make_unique<Expr>(std::move(target)), std::move(function), std::move(args)}};
  }
  Expr list(std::vector<Expr> elements, std::vector<std::int32_t> optional_indices = {}) {
    return Expr{next_id_++, ListExpr{std::move(elements), std::move(optional_indices)}};
  }
  Expr map(std::vector<std::pair<Expr, Expr>> entries) {
    MapExpr m;
    for (auto& [k, v] : entries) {
      m.entries.push_back(MapEntry{next_id_++, std::make_unique<Expr>(std::move(k)),
                                   std::make_unique<Expr>(std::move(v)), false});
    }
    return Expr{next_id_++, std::move(m)};
  }
  // `range.all(var, predicate)` as cel-go's parser expands it.
  Expr all(Expr range, std::string var, Expr predicate) {
    std::string accu(kAccumulatorName);
    Expr init = lit(true);
    Expr condition = call("@not_strictly_false", vec(ident(accu)));
    Expr step = call("_&&_", vec(ident(accu), std::move(predicate)));
    Expr result = ident(accu);
    return Expr{next_id_++,
                ComprehensionExpr{std::move(var), own(std::move(range)), accu, own(std::move(init)),
                                  own(std::move(condition)), own(std::move(step)), own(std::move(result))}};
  }
  // `range.map(var, transform)`.
  Expr map_macro(Expr range, std::string var, Expr transform) {
    std::string accu(kAccumulatorName);
    Expr init = list({});
    Expr condition = lit(true);
    Expr step = call("_+_", vec(ident(accu), list(vec(std::move(transform)))));
    Expr result = ident(accu);
    return Expr{next_id_++,
                ComprehensionExpr{std::move(var), own(std::move(range)), accu, own(std::move(init)),
                                  own(std::move(condition)), own(std::move(step)), own(std::move(result))}};
  }

  // `range.all(var, var2, predicate)`, as ext.TwoVarComprehensions expands it.
  Expr all2(Expr range, std::string var, std::string var2, Expr predicate) {
    Expr e = all(std::move(range), std::move(var), std::move(predicate));
    std::get<ComprehensionExpr>(e.kind).iter_var2 = std::move(var2);
    return e;
  }
  // `range.transformList(var, var2, transform)`.
  Expr transform_list(Expr range, std::string var, std::string var2, Expr transform) {
    Expr e = map_macro(std::move(range), std::move(var), std::move(transform));
    std::get<ComprehensionExpr>(e.kind).iter_var2 = std::move(var2);
    return e;
  }

  ParsedAst ast(Expr root) { return ParsedAst{"", std::move(root), SourceInfo{}}; }

  template <typename... E>
  static std::vector<Expr> vec(E&&... e) {
    std::vector<Expr> out;
    (out.push_back(std::forward<E>(e)), ...);
    return out;
  }

 private:
  static std::unique_ptr<Expr> own(Expr e) { return std::make_unique<Expr>(std::move(e)); }
  std::int64_t next_id_ = 1;
};

}  // namespace kapi::cel::testing
