// Syntax errors as cel-go reports them, for the mistakes people make while typing (unclosed brackets, a lone '=',
// a dangling operator, a bad escape). Each expectation was taken from ANTLR's own runtime running cel-go's
// grammar (the serialized ATN of cel-go v0.22's generated parser) with cel-go's error listener, and matches it.
#include <gtest/gtest.h>

#include <string>

#include "cel/compile.h"

namespace kapi::cel::errors_test {
namespace {

struct ErrorCase {
  const char* input;
  const char* display;  // empty: the expression parses
};

const ErrorCase kErrorCases[] = {
    {R"cel((a)cel",
     R"cel(ERROR: <input>:1:3: Syntax error: missing ')' at '<EOF>'
 | (a
 | ..^)cel"},
    {R"cel(f(a)cel",
     R"cel(ERROR: <input>:1:4: Syntax error: missing ')' at '<EOF>'
 | f(a
 | ...^)cel"},
    {R"cel([1, 2)cel",
     R"cel(ERROR: <input>:1:6: Syntax error: mismatched input '<EOF>' expecting {']', ','}
 | [1, 2
 | .....^)cel"},
    {R"cel([1, 2,)cel",
     R"cel(ERROR: <input>:1:7: Syntax error: missing ']' at '<EOF>'
 | [1, 2,
 | ......^)cel"},
    {R"cel({a: 1)cel",
     R"cel(ERROR: <input>:1:6: Syntax error: mismatched input '<EOF>' expecting {'}', ','}
 | {a: 1
 | .....^)cel"},
    {R"cel(a.)cel",
     R"cel(ERROR: <input>:1:3: Syntax error: no viable alternative at input '.'
 | a.
 | ..^)cel"},
    {R"cel(f((a)cel",
     R"cel(ERROR: <input>:1:5: Syntax error: mismatched input '<EOF>' expecting ')'
 | f((a
 | ....^)cel"},
    {R"cel(a ? b)cel",
     R"cel(ERROR: <input>:1:6: Syntax error: mismatched input '<EOF>' expecting ':'
 | a ? b
 | .....^)cel"},
    {R"cel(-)cel",
     R"cel(ERROR: <input>:1:2: Syntax error: no viable alternative at input '-'
 | -
 | .^
ERROR: <input>:1:2: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}
 | -
 | .^)cel"},
    {R"cel(a.?)cel",
     R"cel(ERROR: <input>:1:4: Syntax error: missing IDENTIFIER at '<EOF>'
 | a.?
 | ...^)cel"},
    {R"cel(a.?1)cel",
     R"cel(ERROR: <input>:1:4: Syntax error: mismatched input '1' expecting IDENTIFIER
 | a.?1
 | ...^)cel"},
    {R"cel(a[)cel",
     R"cel(ERROR: <input>:1:3: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', '?', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}
 | a[
 | ..^)cel"},
    {R"cel(a[?)cel",
     R"cel(ERROR: <input>:1:4: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}
 | a[?
 | ...^)cel"},
    {R"cel('\400')cel",
     R"cel(ERROR: <input>:1:1: Syntax error: token recognition error at: ''\4'
 | '\400'
 | ^
ERROR: <input>:1:6: Syntax error: token recognition error at: '''
 | '\400'
 | .....^)cel"},
    {R"cel(a = 1)cel",
     R"cel(ERROR: <input>:1:3: Syntax error: token recognition error at: '= '
 | a = 1
 | ..^
ERROR: <input>:1:5: Syntax error: extraneous input '1' expecting <EOF>
 | a = 1
 | ....^)cel"},
    {R"cel(x{a: 1 b: 2})cel",
     R"cel(ERROR: <input>:1:8: Syntax error: mismatched input 'b' expecting {'}', ','}
 | x{a: 1 b: 2}
 | .......^)cel"},
    {R"cel({a b})cel",
     R"cel(ERROR: <input>:1:4: Syntax error: missing ':' at 'b'
 | {a b}
 | ...^)cel"},
    {R"cel(f(a b))cel",
     R"cel(ERROR: <input>:1:5: Syntax error: extraneous input 'b' expecting ')'
 | f(a b)
 | ....^)cel"},
    {R"cel((a b c))cel",
     R"cel(ERROR: <input>:1:4: Syntax error: mismatched input 'b' expecting ')'
 | (a b c)
 | ...^)cel"},
    {R"cel(!)cel",
     R"cel(ERROR: <input>:1:2: Syntax error: extraneous input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}
 | !
 | .^)cel"},
    {R"cel(a.b.)cel",
     R"cel(ERROR: <input>:1:5: Syntax error: no viable alternative at input '.'
 | a.b.
 | ....^)cel"},
    {R"cel(.)cel",
     R"cel(ERROR: <input>:1:2: Syntax error: no viable alternative at input '.'
 | .
 | .^)cel"},
    {R"cel(a.1)cel",
     R"cel(ERROR: <input>:1:2: Syntax error: extraneous input '.1' expecting <EOF>
 | a.1
 | .^)cel"},
    {R"cel(1 2)cel",
     R"cel(ERROR: <input>:1:3: Syntax error: extraneous input '2' expecting <EOF>
 | 1 2
 | ..^)cel"},
    {R"cel(a b c)cel",
     R"cel(ERROR: <input>:1:3: Syntax error: mismatched input 'b' expecting <EOF>
 | a b c
 | ..^)cel"},
    {R"cel(1e)cel",
     R"cel(ERROR: <input>:1:2: Syntax error: extraneous input 'e' expecting <EOF>
 | 1e
 | .^)cel"},
    {R"cel(0x)cel",
     R"cel(ERROR: <input>:1:2: Syntax error: extraneous input 'x' expecting <EOF>
 | 0x
 | .^)cel"},
    {R"cel(1 + 2 ) + 3)cel",
     R"cel(ERROR: <input>:1:7: Syntax error: mismatched input ')' expecting <EOF>
 | 1 + 2 ) + 3
 | ......^)cel"},
    {R"cel(f(1,))cel",
     R"cel(ERROR: <input>:1:5: Syntax error: mismatched input ')' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}
 | f(1,)
 | ....^)cel"},
    {R"cel(a.b()cel",
     R"cel(ERROR: <input>:1:5: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', ')', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}
 | a.b(
 | ....^)cel"},
    {R"cel(x.y.z{)cel",
     R"cel(ERROR: <input>:1:7: Syntax error: mismatched input '<EOF>' expecting {'}', ',', '?', IDENTIFIER}
 | x.y.z{
 | ......^)cel"},
    {R"cel({1: 2, 3})cel",
     R"cel(ERROR: <input>:1:9: Syntax error: mismatched input '}' expecting ':'
 | {1: 2, 3}
 | ........^)cel"},
    {R"cel(a &&)cel",
     R"cel(ERROR: <input>:1:5: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}
 | a &&
 | ....^)cel"},
    {R"cel(a ? b :)cel",
     R"cel(ERROR: <input>:1:8: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}
 | a ? b :
 | .......^)cel"},
    {R"cel(!!)cel",
     R"cel(ERROR: <input>:1:3: Syntax error: extraneous input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}
 | !!
 | ..^)cel"},
    {R"cel(-!a)cel",
     R"cel(ERROR: <input>:1:2: Syntax error: no viable alternative at input '-!'
 | -!a
 | .^)cel"},
    {R"cel([1, ))cel",
     R"cel(ERROR: <input>:1:5: Syntax error: mismatched input ')' expecting ']'
 | [1, )
 | ....^)cel"},
    {R"cel(a.? b)cel",
     R"cel()cel"},
    {R"cel(self.x == )cel",
     R"cel(ERROR: <input>:1:11: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}
 | self.x == 
 | ..........^)cel"},
    {R"cel(self.x = 1)cel",
     R"cel(ERROR: <input>:1:8: Syntax error: token recognition error at: '= '
 | self.x = 1
 | .......^
ERROR: <input>:1:10: Syntax error: extraneous input '1' expecting <EOF>
 | self.x = 1
 | .........^)cel"},
    {R"cel(has(self.x)cel",
     R"cel(ERROR: <input>:1:11: Syntax error: missing ')' at '<EOF>'
 | has(self.x
 | ..........^)cel"},
    {R"cel(self.items.all(i, i > 0)cel",
     R"cel(ERROR: <input>:1:24: Syntax error: missing ')' at '<EOF>'
 | self.items.all(i, i > 0
 | .......................^)cel"},
    {R"cel(self.name.startsWith('a))cel",
     R"cel(ERROR: <input>:1:22: Syntax error: token recognition error at: ''a)'
 | self.name.startsWith('a)
 | .....................^
ERROR: <input>:1:25: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', ')', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}
 | self.name.startsWith('a)
 | ........................^)cel"},
    {R"cel(--)cel",
     R"cel(ERROR: <input>:1:3: Syntax error: no viable alternative at input '-'
 | --
 | ..^
ERROR: <input>:1:3: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}
 | --
 | ..^)cel"},
    {R"cel(a ! b)cel",
     R"cel(ERROR: <input>:1:3: Syntax error: mismatched input '!' expecting <EOF>
 | a ! b
 | ..^)cel"},
    {R"cel(!))cel",
     R"cel(ERROR: <input>:1:2: Syntax error: extraneous input ')' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}
 | !)
 | .^)cel"},
    {R"cel([?)cel",
     R"cel(ERROR: <input>:1:3: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}
 | [?
 | ..^)cel"},
    {R"cel({?)cel",
     R"cel(ERROR: <input>:1:3: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}
 | {?
 | ..^)cel"},
    {R"cel(a ? b c)cel",
     R"cel(ERROR: <input>:1:7: Syntax error: missing ':' at 'c'
 | a ? b c
 | ......^)cel"},
    {R"cel(x.exists(y, y > 0)) && z)cel",
     R"cel(ERROR: <input>:1:19: Syntax error: mismatched input ')' expecting <EOF>
 | x.exists(y, y > 0)) && z
 | ..................^)cel"},
    {R"cel(a.b.c.d(e, f, g.h(i[j]))[k]])cel",
     R"cel(ERROR: <input>:1:28: Syntax error: extraneous input ']' expecting <EOF>
 | a.b.c.d(e, f, g.h(i[j]))[k]]
 | ...........................^)cel"},
    {R"cel("abc
def")cel",
     R"cel(ERROR: <input>:1:1: Syntax error: token recognition error at: '"abc\n'
 | "abc
 | ^
ERROR: <input>:2:4: Syntax error: token recognition error at: '"'
 | def"
 | ...^)cel"},
    {R"cel(r"abc)cel",
     R"cel(ERROR: <input>:1:2: Syntax error: token recognition error at: '"abc'
 | r"abc
 | .^)cel"},
    {R"cel(b'x)cel",
     R"cel(ERROR: <input>:1:2: Syntax error: token recognition error at: ''x'
 | b'x
 | .^)cel"},
    {R"cel(1.5e+)cel",
     R"cel(ERROR: <input>:1:4: Syntax error: mismatched input 'e' expecting <EOF>
 | 1.5e+
 | ...^)cel"},
    {R"cel(a | b)cel",
     R"cel(ERROR: <input>:1:3: Syntax error: token recognition error at: '| '
 | a | b
 | ..^
ERROR: <input>:1:5: Syntax error: extraneous input 'b' expecting <EOF>
 | a | b
 | ....^)cel"},
    {R"cel(a & b)cel",
     R"cel(ERROR: <input>:1:3: Syntax error: token recognition error at: '& '
 | a & b
 | ..^
ERROR: <input>:1:5: Syntax error: extraneous input 'b' expecting <EOF>
 | a & b
 | ....^)cel"},
    {R"cel(#)cel",
     R"cel(ERROR: <input>:1:1: Syntax error: token recognition error at: '#'
 | #
 | ^
ERROR: <input>:1:2: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}
 | #
 | .^)cel"},
    {R"cel({"a": 1}."a")cel",
     R"cel(ERROR: <input>:1:10: Syntax error: no viable alternative at input '."a"'
 | {"a": 1}."a"
 | .........^)cel"},
    {R"cel(self.true == 1)cel",
     R"cel(ERROR: <input>:1:6: Syntax error: mismatched input 'true' expecting IDENTIFIER
 | self.true == 1
 | .....^)cel"},
    {R"cel(a || b &&)cel",
     R"cel(ERROR: <input>:1:10: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}
 | a || b &&
 | .........^)cel"},
    {R"cel(a in)cel",
     R"cel(ERROR: <input>:1:5: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}
 | a in
 | ....^)cel"},
    {R"cel(a < < b)cel",
     R"cel(ERROR: <input>:1:5: Syntax error: extraneous input '<' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}
 | a < < b
 | ....^)cel"},
    {R"cel(- 1)cel",
     R"cel()cel"},
    {R"cel(1 -- 1)cel",
     R"cel()cel"},
    {R"cel(x[0)cel",
     R"cel(ERROR: <input>:1:4: Syntax error: missing ']' at '<EOF>'
 | x[0
 | ...^)cel"},
    {R"cel(x[0]])cel",
     R"cel(ERROR: <input>:1:5: Syntax error: extraneous input ']' expecting <EOF>
 | x[0]]
 | ....^)cel"},
    {R"cel({)cel",
     R"cel(ERROR: <input>:1:2: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '}', '(', '.', ',', '-', '!', '?', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}
 | {
 | .^)cel"},
    {R"cel(})cel",
     R"cel(ERROR: <input>:1:1: Syntax error: mismatched input '}' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}
 | }
 | ^)cel"},
    {R"cel())cel",
     R"cel(ERROR: <input>:1:1: Syntax error: mismatched input ')' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}
 | )
 | ^)cel"},
    {R"cel(])cel",
     R"cel(ERROR: <input>:1:1: Syntax error: mismatched input ']' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}
 | ]
 | ^)cel"},
    {R"cel(Msg{)cel",
     R"cel(ERROR: <input>:1:5: Syntax error: mismatched input '<EOF>' expecting {'}', ',', '?', IDENTIFIER}
 | Msg{
 | ....^)cel"},
    {R"cel(Msg{a)cel",
     R"cel(ERROR: <input>:1:6: Syntax error: mismatched input '<EOF>' expecting ':'
 | Msg{a
 | .....^)cel"},
    {R"cel(Msg{a:)cel",
     R"cel(ERROR: <input>:1:7: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}
 | Msg{a:
 | ......^)cel"},
    {R"cel(.Msg{?a: 1,})cel",
     R"cel()cel"},
    {R"cel([,])cel",
     R"cel()cel"},
    {R"cel({,})cel",
     R"cel()cel"},
    {R"cel(f(,))cel",
     R"cel(ERROR: <input>:1:3: Syntax error: extraneous input ',' expecting {'[', '{', '(', ')', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}
 | f(,)
 | ..^)cel"},
    {R"cel(a.f(,))cel",
     R"cel(ERROR: <input>:1:5: Syntax error: extraneous input ',' expecting {'[', '{', '(', ')', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}
 | a.f(,)
 | ....^)cel"},
    {R"cel({1:2,,})cel",
     R"cel(ERROR: <input>:1:6: Syntax error: extraneous input ',' expecting '}'
 | {1:2,,}
 | .....^)cel"},
    {R"cel(a ? b.? ? 0 : 1)cel",
     R"cel(ERROR: <input>:1:9: Syntax error: mismatched input '?' expecting IDENTIFIER
 | a ? b.? ? 0 : 1
 | ........^)cel"},
    {R"cel(a ? b.? : 1)cel",
     R"cel(ERROR: <input>:1:9: Syntax error: missing IDENTIFIER at ':'
 | a ? b.? : 1
 | ........^)cel"},
    {R"cel(a ? (b : c)cel",
     R"cel(ERROR: <input>:1:8: Syntax error: missing ')' at ':'
 | a ? (b : c
 | .......^)cel"},
    {R"cel({a: b ? c})cel",
     R"cel(ERROR: <input>:1:10: Syntax error: mismatched input '}' expecting ':'
 | {a: b ? c}
 | .........^)cel"},
    {R"cel(x[a ? b])cel",
     R"cel(ERROR: <input>:1:8: Syntax error: mismatched input ']' expecting ':'
 | x[a ? b]
 | .......^)cel"},
};

class CelParserErrorsTest : public ::testing::TestWithParam<std::size_t> {};

TEST_P(CelParserErrorsTest, ReportsWhatCelGoReports) {
  const ErrorCase& c = kErrorCases[GetParam()];
  ParseResult result = parse(c.input);
  EXPECT_EQ(result.issues.to_display_string(c.input, {}), c.display) << c.input;
  EXPECT_EQ(result.ast.has_value(), result.issues.empty());
}

INSTANTIATE_TEST_SUITE_P(Typing, CelParserErrorsTest,
                         ::testing::Range<std::size_t>(0, sizeof(kErrorCases) / sizeof(kErrorCases[0])));

}  // namespace
}  // namespace kapi::cel::errors_test
