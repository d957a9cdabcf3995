#pragma once
// Builds checked ASTs by hand (types and references as cel-go's checker records them), so the estimator is tested
// without the parser and checker. Ids count up from 1.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "cel/ast.h"

namespace kapi::cel::cost_testing {

class CheckedBuilder {
 public:
  Expr lit(Constant c, Type type) { return typed(Expr{next_id_++, std::move(c)}, std::move(type)); }
  Expr str(std::string s) { return lit(std::move(s), Type::string_type()); }
  Expr integer(std::int64_t i) { return lit(i, Type::int_type()); }
  Expr boolean(bool b) { return lit(b, Type::bool_type()); }

  Expr ident(std::string name, Type type) {
    Expr e = typed(Expr{next_id_++, IdentExpr{name}}, std::move(type));
    ast_.references[e.id] = Reference{std::move(name), {}, std::nullopt};
    return e;
  }
  // A comprehension variable: no reference, as cel-go's checker records none for them.
  Expr var(std::string name, Type type) { return typed(Expr{next_id_++, IdentExpr{std::move(name)}}, std::move(type)); }

  Expr select(Expr operand, std::string field, Type type, bool test_only = false) {
    return typed(Expr{next_id_++, SelectExpr{own(std::move(operand)), std::move(field), test_only}}, std::move(type));
  }
  Expr call(std::string function, std::vector<std::string> overloads, Type result, std::vector<Expr> args) {
    Expr e = typed(Expr{next_id_++, CallExpr{nullptr, std::move(function), std::move(args)}}, std::move(result));
    ast_.references[e.id] = Reference{"", std::move(overloads), std::nullopt};
    return e;
  }
  Expr member(Expr target, std::string function, std::vector<std::string> overloads, Type result,
              std::vector<Expr> args) {
    Expr e = typed(Expr{next_id_++, CallExpr{own(std::move(target)), std::move(function), std::move(args)}},
                   std::move(result));
    ast_.references[e.id] = Reference{"", std::move(overloads), std::nullopt};
    return e;
  }
  Expr list(std::vector<Expr> elements, Type element_type) {
    return typed(Expr{next_id_++, ListExpr{std::move(elements), {}}}, Type::list(std::move(element_type)));
  }
  Expr map(std::vector<std::pair<Expr, Expr>> entries, Type key, Type value) {
    MapExpr m;
    for (auto& [k, v] : entries) m.entries.push_back(MapEntry{next_id_++, own(std::move(k)), own(std::move(v)), false});
    return typed(Expr{next_id_++, std::move(m)}, Type::map(std::move(key), std::move(value)));
  }

  // `range.all(var, predicate)` as cel-go v0.22 expands it.
  Expr all(Expr range, std::string var, Expr predicate) {
    std::string accu(kAccumulatorName);
    Expr init = boolean(true);
    Expr condition = call("@not_strictly_false", {"not_strictly_false"}, Type::bool_type(),
                          vec(this->var(accu, Type::bool_type())));
    Expr step = call("_&&_", {"logical_and"}, Type::bool_type(),
                     vec(this->var(accu, Type::bool_type()), std::move(predicate)));
    Expr result = this->var(accu, Type::bool_type());
    return fold(std::move(var), std::move(range), std::move(init), std::move(condition), std::move(step),
                std::move(result), Type::bool_type());
  }
  // `range.map(var, transform)`.
  Expr map_macro(Expr range, std::string var, Expr transform, Type element) {
    std::string accu(kAccumulatorName);
    const Type list_type = Type::list(element);
    Expr init = list({}, element);
    Expr condition = boolean(true);
    Expr step = call("_+_", {"add_list"}, list_type, vec(this->var(accu, list_type), list(vec(std::move(transform)), element)));
    Expr result = this->var(accu, list_type);
    return fold(std::move(var), std::move(range), std::move(init), std::move(condition), std::move(step),
                std::move(result), list_type);
  }

  CheckedAst build(Expr root) {
    ast_.root = std::move(root);
    return std::move(ast_);
  }

  template <typename... E>
  static std::vector<Expr> vec(E&&... e) {
    std::vector<Expr> out;
    (out.push_back(std::forward<E>(e)), ...);
    return out;
  }

 private:
  Expr fold(std::string var, Expr range, Expr init, Expr condition, Expr step, Expr result, Type type) {
    return typed(Expr{next_id_++, ComprehensionExpr{std::move(var), own(std::move(range)), std::string(kAccumulatorName),
                                                    own(std::move(init)), own(std::move(condition)),
                                                    own(std::move(step)), own(std::move(result))}},
                 std::move(type));
  }
  Expr typed(Expr e, Type type) {
    ast_.types[e.id] = std::move(type);
    return e;
  }
  static std::unique_ptr<Expr> own(Expr e) { return std::make_unique<Expr>(std::move(e)); }

  CheckedAst ast_;
  std::int64_t next_id_ = 1;
};

}  // namespace kapi::cel::cost_testing
