// Macro expansion as cel-go v0.22 does it: the standard macros (parser/macro.go), the optional library's optMap
// and optFlatMap (cel/library.go) and ext.Bindings' cel.bind (ext/bindings.go), only when the options name them.
#include <gtest/gtest.h>

#include <string>

#include "cel/compile.h"

namespace kapi::cel {
namespace {

std::string expanded(std::string_view text, std::vector<std::string> extra_macros = {}) {
  ParserOptions options;
  options.extra_macros = std::move(extra_macros);
  ParseResult result = parse(text, options);
  if (!result.ast) return result.issues.to_display_string(std::string(text), {});
  return debug_string(result.ast->root);
}

TEST(CelMacroTest, HasIsAPresenceTest) {
  EXPECT_EQ(expanded("has(a.b.c)"), "a.b.c~test-only~");
  EXPECT_EQ(expanded("has(a)"), "ERROR: <input>:1:5: invalid argument to has() macro\n | has(a)\n | ....^");
  EXPECT_EQ(expanded("x.has(a.b)"), "x.has(\n  a.b\n)");  // has is global only
  EXPECT_EQ(expanded("has(a.b, c)"), "has(\n  a.b,\n  c\n)");
}

TEST(CelMacroTest, ExistsOneIsTheOnlySpellingInV022) {
  EXPECT_EQ(expanded("x.existsOne(y, y)"), "x.existsOne(\n  y,\n  y\n)");
}

TEST(CelMacroTest, ArgumentErrors) {
  EXPECT_EQ(expanded("x.all(1, y)"), "ERROR: <input>:1:7: argument must be a simple name\n | x.all(1, y)\n | ......^");
  EXPECT_EQ(expanded("x.map(a.b, y)"),
            "ERROR: <input>:1:8: argument is not an identifier\n | x.map(a.b, y)\n | .......^");
  EXPECT_EQ(expanded("x.exists(y)"), "x.exists(\n  y\n)");  // the wrong arity is just a call
}

TEST(CelMacroTest, OptMapOnlyWhenEnabled) {
  EXPECT_EQ(expanded("a.optMap(x, x + 1)"), "a.optMap(\n  x,\n  _+_(\n    x,\n    1\n  )\n)");
  EXPECT_EQ(expanded("a.optMap(x, x + 1)", {"optMap"}),
            "_?_:_(\n"
            "  a.hasValue(),\n"
            "  optional.of(\n"
            "    __comprehension__(\n"
            "      // Variable\n"
            "      #unused,\n"
            "      // Target\n"
            "      [],\n"
            "      // Accumulator\n"
            "      x,\n"
            "      // Init\n"
            "      a.value(),\n"
            "      // LoopCondition\n"
            "      false,\n"
            "      // LoopStep\n"
            "      x,\n"
            "      // Result\n"
            "      _+_(\n"
            "        x,\n"
            "        1\n"
            "      ))\n"
            "  ),\n"
            "  optional.none()\n"
            ")");
  EXPECT_EQ(expanded("a.optMap(x.y, 1)", {"optMap"}),
            "ERROR: <input>:1:11: optMap() variable name must be a simple identifier\n | a.optMap(x.y, 1)\n"
            " | ..........^");
}

TEST(CelMacroTest, OptFlatMapHasNoOptionalOf) {
  EXPECT_EQ(expanded("a.b.optFlatMap(x, x)", {"optFlatMap"}),
            "_?_:_(\n"
            "  a.b.hasValue(),\n"
            "  __comprehension__(\n"
            "    // Variable\n"
            "    #unused,\n"
            "    // Target\n"
            "    [],\n"
            "    // Accumulator\n"
            "    x,\n"
            "    // Init\n"
            "    a.b.value(),\n"
            "    // LoopCondition\n"
            "    false,\n"
            "    // LoopStep\n"
            "    x,\n"
            "    // Result\n"
            "    x),\n"
            "  optional.none()\n"
            ")");
}

TEST(CelMacroTest, OptMapNumbersNodesAsCelGo) {
  ParserOptions options;
  options.extra_macros = {"optMap"};
  ParseResult result = parse("a.optMap(x, x)", options);
  ASSERT_TRUE(result.ast);
  // a=1, '('=2 (dropped), x=3, x=4; then hasValue()=5, []=6, the copy of a=7, value()=8, false=9, x=10,
  // the fold=11, optional.of=12, optional.none=13, the conditional=14.
  const auto& conditional = std::get<CallExpr>(result.ast->root.kind);
  EXPECT_EQ(result.ast->root.id, 14);
  EXPECT_EQ(conditional.args[0].id, 5);
  EXPECT_EQ(std::get<CallExpr>(conditional.args[0].kind).target->id, 1);
  const Expr& of = conditional.args[1];
  EXPECT_EQ(of.id, 12);
  const auto& fold = std::get<ComprehensionExpr>(std::get<CallExpr>(of.kind).args[0].kind);
  EXPECT_EQ(fold.iter_range->id, 6);
  EXPECT_EQ(fold.accu_init->id, 8);
  EXPECT_EQ(std::get<CallExpr>(fold.accu_init->kind).target->id, 7);
  EXPECT_EQ(result.ast->source_info.positions.at(7), 0);   // the copy keeps the original's position
  EXPECT_EQ(result.ast->source_info.positions.at(14), 8);  // macro nodes sit at the call's '('
  EXPECT_FALSE(result.ast->source_info.positions.contains(2));
}

TEST(CelMacroTest, CelBind) {
  EXPECT_EQ(expanded("cel.bind(x, 1, x + x)", {"cel.bind"}),
            "__comprehension__(\n"
            "  // Variable\n"
            "  #unused,\n"
            "  // Target\n"
            "  [],\n"
            "  // Accumulator\n"
            "  x,\n"
            "  // Init\n"
            "  1,\n"
            "  // LoopCondition\n"
            "  false,\n"
            "  // LoopStep\n"
            "  x,\n"
            "  // Result\n"
            "  _+_(\n"
            "    x,\n"
            "    x\n"
            "  ))");
  // Only on the cel namespace, and only when enabled.
  EXPECT_EQ(expanded("other.bind(x, 1, x)", {"cel.bind"}), "other.bind(\n  x,\n  1,\n  x\n)");
  EXPECT_EQ(expanded("cel.bind(x, 1, x)"), "cel.bind(\n  x,\n  1,\n  x\n)");
  EXPECT_EQ(expanded("cel.bind(1, 1, 1)", {"cel.bind"}),
            "ERROR: <input>:1:10: cel.bind() variable names must be simple identifiers\n | cel.bind(1, 1, 1)\n"
            " | .........^");
}

TEST(CelMacroTest, NestedMacros) {
  ParseResult result = parse("x.all(y, y.exists(z, z > 0)) && [1].map(i, i * 2).filter(j, has(j.k))");
  ASSERT_TRUE(result.ast) << result.issues.to_display_string("", {});
  // Every node has a position.
  std::vector<const Expr*> stack{&result.ast->root};
  std::size_t nodes = 0;
  while (!stack.empty()) {
    const Expr* e = stack.back();
    stack.pop_back();
    ++nodes;
    EXPECT_TRUE(result.ast->source_info.positions.contains(e->id)) << e->id;
    if (auto* c = std::get_if<CallExpr>(&e->kind)) {
      if (c->target) stack.push_back(c->target.get());
      for (const Expr& a : c->args) stack.push_back(&a);
    } else if (auto* s = std::get_if<SelectExpr>(&e->kind)) {
      stack.push_back(s->operand.get());
    } else if (auto* l = std::get_if<ListExpr>(&e->kind)) {
      for (const Expr& a : l->elements) stack.push_back(&a);
    } else if (auto* f = std::get_if<ComprehensionExpr>(&e->kind)) {
      for (const auto* p : {&f->iter_range, &f->accu_init, &f->loop_condition, &f->loop_step, &f->result}) {
        stack.push_back(p->get());
      }
    }
  }
  EXPECT_GT(nodes, 30u);
}

}  // namespace
}  // namespace kapi::cel

namespace kapi::cel {
namespace {

const std::vector<std::string> kTwoVarMacros = {"all",           "exists",       "existsOne",        "exists_one",
                                                "transformList", "transformMap", "transformMapEntry"};

TEST(CelMacroTest, TwoVariableQuantifiers) {
  EXPECT_EQ(expanded("m.all(k, v, k < v)", kTwoVarMacros),
            "__comprehension__(\n"
            "  // Variable\n"
            "  k,\n"
            "  v,\n"
            "  // Target\n"
            "  m,\n"
            "  // Accumulator\n"
            "  @result,\n"
            "  // Init\n"
            "  true,\n"
            "  // LoopCondition\n"
            "  @not_strictly_false(\n"
            "    @result\n"
            "  ),\n"
            "  // LoopStep\n"
            "  _&&_(\n"
            "    @result,\n"
            "    _<_(\n"
            "      k,\n"
            "      v\n"
            "    )\n"
            "  ),\n"
            "  // Result\n"
            "  @result)");
  // Without the library, the three-argument forms are plain calls.
  EXPECT_EQ(expanded("m.all(k, v, p)"), "m.all(\n  k,\n  v,\n  p\n)");
  EXPECT_TRUE(expanded("m.existsOne(k, v, p)", kTwoVarMacros).starts_with("__comprehension__("));
  EXPECT_TRUE(expanded("m.exists_one(k, v, p)", kTwoVarMacros).starts_with("__comprehension__("));
  EXPECT_EQ(expanded("m.existsOne(k, p)", kTwoVarMacros), "m.existsOne(\n  k,\n  p\n)");  // v0.22.1's spelling
}

TEST(CelMacroTest, TwoVariableErrors) {
  auto first_line = [](const std::string& s) { return s.substr(0, s.find('\n')); };
  EXPECT_EQ(first_line(expanded("[].all(i, i, i < i)", kTwoVarMacros)),
            "ERROR: <input>:1:11: duplicate variable name: i");
  EXPECT_EQ(first_line(expanded("[].all(__result__, i, __result__ < i)", kTwoVarMacros)),
            "ERROR: <input>:1:8: iteration variable overwrites accumulator variable");
  EXPECT_EQ(first_line(expanded("[].all(j, i.k, j < i.k)", kTwoVarMacros)),
            "ERROR: <input>:1:12: argument must be a simple name");
  EXPECT_EQ(first_line(expanded("[].transformList(i.j, k, k)", kTwoVarMacros)),
            "ERROR: <input>:1:19: argument must be a simple name");
}

TEST(CelMacroTest, Transforms) {
  EXPECT_EQ(expanded("l.transformList(i, v, i > 0, v * 2)", kTwoVarMacros),
            "__comprehension__(\n"
            "  // Variable\n"
            "  i,\n"
            "  v,\n"
            "  // Target\n"
            "  l,\n"
            "  // Accumulator\n"
            "  @result,\n"
            "  // Init\n"
            "  [],\n"
            "  // LoopCondition\n"
            "  true,\n"
            "  // LoopStep\n"
            "  _?_:_(\n"
            "    _>_(\n"
            "      i,\n"
            "      0\n"
            "    ),\n"
            "    _+_(\n"
            "      @result,\n"
            "      [\n"
            "        _*_(\n"
            "          v,\n"
            "          2\n"
            "        )\n"
            "      ]\n"
            "    ),\n"
            "    @result\n"
            "  ),\n"
            "  // Result\n"
            "  @result)");
  EXPECT_EQ(expanded("m.transformMap(k, v, v + 1)", kTwoVarMacros),
            "__comprehension__(\n"
            "  // Variable\n"
            "  k,\n"
            "  v,\n"
            "  // Target\n"
            "  m,\n"
            "  // Accumulator\n"
            "  @result,\n"
            "  // Init\n"
            "  {},\n"
            "  // LoopCondition\n"
            "  true,\n"
            "  // LoopStep\n"
            "  cel.@mapInsert(\n"
            "    @result,\n"
            "    k,\n"
            "    _+_(\n"
            "      v,\n"
            "      1\n"
            "    )\n"
            "  ),\n"
            "  // Result\n"
            "  @result)");
  EXPECT_EQ(expanded("m.transformMapEntry(k, v, {v: k})", kTwoVarMacros),
            "__comprehension__(\n"
            "  // Variable\n"
            "  k,\n"
            "  v,\n"
            "  // Target\n"
            "  m,\n"
            "  // Accumulator\n"
            "  @result,\n"
            "  // Init\n"
            "  {},\n"
            "  // LoopCondition\n"
            "  true,\n"
            "  // LoopStep\n"
            "  cel.@mapInsert(\n"
            "    @result,\n"
            "    {\n"
            "      v:k\n"
            "    }\n"
            "  ),\n"
            "  // Result\n"
            "  @result)");
}

TEST(CelMacroTest, TransformListNumbersTheStepFirst) {
  ParserOptions options;
  options.extra_macros = kTwoVarMacros;
  ParseResult result = parse("l.transformList(i, v, v)", options);
  ASSERT_TRUE(result.ast);
  // l=1, '('=2 (dropped), i=3, v=4, v=5; step: @result=6, [v]=7, _+_=8; init []=9, true=10, result @result=11.
  EXPECT_EQ(result.ast->root.id, 12);
  const auto& fold = std::get<ComprehensionExpr>(result.ast->root.kind);
  EXPECT_EQ(fold.loop_step->id, 8);
  EXPECT_EQ(fold.accu_init->id, 9);
  EXPECT_EQ(fold.result->id, 11);
  EXPECT_EQ(result.ast->root.clone().kind.index(), result.ast->root.kind.index());
  EXPECT_EQ(std::get<ComprehensionExpr>(result.ast->root.clone().kind).iter_var2, "v");
}

}  // namespace
}  // namespace kapi::cel
