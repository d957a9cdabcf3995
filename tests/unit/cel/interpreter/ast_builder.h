#pragma once
// Builds expression trees by hand for interpreter tests that must not depend on the parser (macro expansions are
// spelled out as cel-go's parser produces them).
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "cel/ast.h"
#include "cel/env.h"
#include "cel/program.h"

namespace kapi::cel::testing {

class AstBuilder {
 public:
  Expr lit(Constant c) { return make(std::move(c)); }
  Expr i(std::int64_t v) { return lit(Constant(v)); }
  Expr u(std::uint64_t v) { return lit(Constant(v)); }
  Expr d(double v) { return lit(Constant(v)); }
  Expr s(std::string v) { return lit(Constant(std::move(v))); }
  Expr b(bool v) { return lit(Constant(v)); }
  Expr null() { return lit(Constant(NullLiteral{})); }
  Expr ident(std::string name) { return make(IdentExpr{std::move(name)}); }
  Expr select(Expr operand, std::string field, bool test_only = false) {
    return make(SelectExpr{std::make_unique<Expr>(std::move(operand)), std::move(field), test_only});
  }
  Expr has(Expr operand, std::string field) { return select(std::move(operand), std::move(field), true); }
  Expr call(std::string function, std::vector<Expr> args) {
    return make(CallExpr{nullptr, std::move(function), std::move(args)});
  }
  Expr call(std::string function, Expr a) { return call(std::move(function), vec(std::move(a))); }
  Expr call(std::string function, Expr a, Expr b) { return call(std::move(function), vec(std::move(a), std::move(b))); }
  Expr call(std::string function, Expr a, Expr b, Expr c) {
    return call(std::move(function), vec(std::move(a), std::move(b), std::move(c)));
  }
  Expr member(Expr target, std::string function, std::vector<Expr> args = {}) {
    return make(CallExpr{std::make_unique<Expr>(std::move(target)), std::move(function), std::move(args)});
  }
  Expr list(std::vector<Expr> elements, std::vector<std::int32_t> optional_indices = {}) {
    return make(ListExpr{std::move(elements), std::move(optional_indices)});
  }
  // keys_and_values: key0, value0, key1, value1, ...
  Expr map(std::vector<Expr> keys_and_values, std::vector<bool> optional = {}) {
    MapExpr m;
    for (std::size_t k = 0; k + 1 < keys_and_values.size(); k += 2) {
      m.entries.push_back(MapEntry{next_++, std::make_unique<Expr>(std::move(keys_and_values[k])),
                                   std::make_unique<Expr>(std::move(keys_and_values[k + 1])),
                                   k / 2 < optional.size() && optional[k / 2]});
    }
    return make(std::move(m));
  }
  Expr fold(std::string iter_var, Expr range, std::string accu_var, Expr init, Expr condition, Expr step, Expr result) {
    return make(ComprehensionExpr{std::move(iter_var), std::make_unique<Expr>(std::move(range)), std::move(accu_var),
                                  std::make_unique<Expr>(std::move(init)), std::make_unique<Expr>(std::move(condition)),
                                  std::make_unique<Expr>(std::move(step)), std::make_unique<Expr>(std::move(result))});
  }
  // The macros as cel-go's parser expands them.
  Expr all(Expr range, std::string var, Expr predicate) {
    return fold(var, std::move(range), "@result", b(true), call("@not_strictly_false", ident("@result")),
                call("_&&_", ident("@result"), std::move(predicate)), ident("@result"));
  }
  Expr exists(Expr range, std::string var, Expr predicate) {
    return fold(var, std::move(range), "@result", b(false),
                call("@not_strictly_false", call("!_", ident("@result"))),
                call("_||_", ident("@result"), std::move(predicate)), ident("@result"));
  }
  Expr map_macro(Expr range, std::string var, Expr transform) {
    return fold(var, std::move(range), "@result", list({}), b(true),
                call("_+_", ident("@result"), list(vec(std::move(transform)))), ident("@result"));
  }
  Expr filter(Expr range, std::string var, Expr predicate) {
    Expr step = call("_?_:_", std::move(predicate), call("_+_", ident("@result"), list(vec(ident(var)))),
                     ident("@result"));
    return fold(var, std::move(range), "@result", list({}), b(true), std::move(step), ident("@result"));
  }

  template <typename... E>
  static std::vector<Expr> vec(E&&... e) {
    std::vector<Expr> out;
    (out.push_back(std::forward<E>(e)), ...);
    return out;
  }

 private:
  template <typename K>
  Expr make(K kind) {
    Expr e;
    e.id = next_++;
    e.kind = std::move(kind);
    return e;
  }
  std::int64_t next_ = 1;
};

inline std::shared_ptr<const Env> shared_standard_env() {
  static const std::shared_ptr<const Env> env = std::make_shared<const Env>(standard_env());
  return env;
}

// Plans expr unchecked against the standard environment and evaluates it.
inline EvalResult run(Expr expr, const Activation& activation = MapActivation(), EvalOptions options = {},
                      std::shared_ptr<const Env> env = shared_standard_env()) {
  auto ast = std::make_shared<ParsedAst>();
  ast->root = std::move(expr);
  Program program = Program::plan_unchecked(std::move(env), std::move(ast));
  return program.eval(activation, options);
}

inline std::string show(const EvalResult& result) { return debug_string(result.value); }

}  // namespace kapi::cel::testing
