// kube's libraries end to end: expressions compiled against kube_base_env() (and kube_stored_env()), planned and
// evaluated, with kube's results and messages (library/cel_test.go, quantity_test.go, ip_test.go, cidr_test.go,
// format_test.go; cel-go ext/strings_test.go, sets_test.go).
#include <gtest/gtest.h>

#include <memory>

#include "cel/compile.h"
#include "cel/ext/authz.h"
#include "cel/ext/kube_env.h"
#include "cel/ext/strings_format.h"
#include "cel/program.h"

namespace kapi::cel::ext::kube_env_test {
namespace {

class CelKubeEnv : public ::testing::Test {
 protected:
  static std::shared_ptr<const Env> base() {
    static const std::shared_ptr<const Env> env = std::make_shared<const Env>(kube_base_env());
    return env;
  }

  // The value's debug form, "ERROR: <compile message>" or "EVAL ERROR: <message>".
  static std::string eval(std::string_view expr, const Activation& activation = MapActivation{},
                          std::shared_ptr<const Env> env = base()) {
    CheckResult checked = compile(*env, expr);
    if (!checked.ast) return "ERROR: " + (checked.issues.empty() ? std::string("?") : checked.issues.errors[0].message);
    auto ast = std::make_shared<const CheckedAst>(std::move(*checked.ast));
    Value v = Program::plan(env, ast).eval(activation).value;
    if (v.is_error()) return "EVAL ERROR: " + v.get<Error>().message;
    return debug_string(v);
  }
};

TEST_F(CelKubeEnv, TrueExpressions) {
  for (const char* expr : {
           // strings (ext.Strings v2)
           "'a,b'.split(',') == ['a', 'b']",
           "'tacocat'.charAt(3) == 'o'",
           "'ta©o©αT'.indexOf('©', 3) == 4",
           "'hello wello'.lastIndexOf('ello', 6) == 1",
           "'TacoCÆt Xii'.lowerAscii() == 'tacocÆt xii'",
           "'{0} days {0} hours'.replace('{0}', '2', 1).replace('{0}', '23') == '2 days 23 hours'",
           "'hello world events!'.split(' ', 0) == []",
           "'ta©o©αT'.substring(2, 6) == '©o©α'",
           "' \\f\\n\\r\\t\\vtext  '.trim() == 'text'",
           "['x', 'y'].join('-') == 'x-y'",
           "[].join() == ''",
           "strings.quote('first\\nsecond') == '\"first\\\\nsecond\"'",
           "'%d %s'.format([1, 'a']) == '1 a'",
           "'%s'.format([[1, 'a']]) == '[1, \"a\"]'",
           // sets
           "sets.contains([1, 2, 3], [2, 3])",
           "sets.equivalent([1, 2], [2, 1, 1])",
           "sets.intersects([1], [1, 2]) && !sets.intersects([1], [])",
           // lists
           "[1, 2, 3].isSorted() && !['b', 'a'].isSorted()",
           "[1, 3].sum() == 4 && [1.0, 3.0].sum() == 4.0",
           "[duration('1m'), duration('1s')].sum() == duration('61s')",
           "[1, 3].min() == 1 && [1, 3].max() == 3",
           "[1, 2, 2, 3].indexOf(2) == 1 && ['a', 'b', 'b', 'c'].lastIndexOf('b') == 2",
           // regex
           "'abc 123'.find('[0-9]+') == '123'",
           "'123 abc 456'.findAll('[0-9]+') == ['123', '456']",
           "'123 abc 456'.findAll('[0-9]+', 1) == ['123']",
           // urls
           "url('https://example.com:80/path?q=1').getScheme() == 'https'",
           "url('https://example.com:80/').getHostname() == 'example.com'",
           "url('https://[::1]:80/').getPort() == '80'",
           "url('https://example.com/path with spaces/').getEscapedPath() == '/path%20with%20spaces/'",
           "url('https://x/y?q=1').getQuery() == {'q': ['1']}",
           "url('https://x/y?k1=a&k2=b&k2=c').getQuery()['k2'] == ['b', 'c']",
           "isURL('https://example.com') && !isURL('../relative')",
           // quantity
           "quantity('1Gi').isGreaterThan(quantity('1Mi'))",
           "quantity('200M') == quantity('0.2G')",
           "quantity('50k').add(20).sub(quantity('100k')).sub(-50000).asInteger() == 20",
           "quantity('50k').add(quantity('20')) == quantity('50.02k')",
           "quantity('50M').compareTo(quantity('50Mi')) == -1",
           "quantity('50.703k').asApproximateFloat() == 50703.0",
           "isQuantity('20Mi') && !isQuantity('20Mo')",
           "!quantity('9999999999999999999999999999999999999G').isInteger()",
           "sign(quantity('-5')) == -1",
           "type(quantity('1')) == kubernetes.Quantity",
           // ip and cidr
           "ip('192.168.0.1').family() == 4 && ip('2001:db8::68').family() == 6",
           "ip.isCanonical('2001:db8::68') && !ip.isCanonical('2001:DB8::68')",
           "ip('127.0.0.1').isLoopback() && ip('fe80::1').isLinkLocalUnicast()",
           "string(ip('192.168.0.1')) == '192.168.0.1'",
           "type(ip('192.168.0.1')) == net.IP",
           "isIP('192.168.0.1') && !isIP('192.168.0.1.0')",
           "cidr('192.168.0.0/24').containsIP(ip('192.168.0.1'))",
           "cidr('192.168.0.0/24').containsIP('192.168.0.1')",
           "cidr('192.168.0.0/16').containsCIDR('192.168.10.0/24')",
           "!cidr('192.168.0.0/24').containsCIDR(cidr('192.168.0.0/23'))",
           "cidr('192.168.0.1/24').masked() == cidr('192.168.0.0/24')",
           "cidr('192.168.0.1/24').ip() == ip('192.168.0.1')",
           "cidr('::1/128').prefixLength() == 128",
           "string(cidr('192.168.0.0/24')) == '192.168.0.0/24'",
           "type(cidr('192.168.0.0/24')) == net.CIDR",
           "isCIDR('10.0.0.0/8') && !isCIDR('10.0.0.0')",
           // format
           "!format.dns1123Label().validate('my-label-name').hasValue()",
           "format.dns1123Label().validate('Not_Valid').hasValue()",
           "format.named('uuid').hasValue() && !format.named('nope').hasValue()",
           "format.named('dns1123Subdomain').value().validate('a.b').orValue([]) == []",
           "format.uri().validate('example').value() == ['parse \"example\": invalid URI for request']",
       }) {
    EXPECT_EQ(eval(expr), "true") << expr;
  }
}

TEST_F(CelKubeEnv, RuntimeErrors) {
  EXPECT_EQ(eval("quantity('10Mo')"),
            "EVAL ERROR: quantities must match the regular expression "
            "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
  EXPECT_EQ(eval("quantity('10Mm')"), "EVAL ERROR: unable to parse quantity's suffix");
  EXPECT_EQ(eval("quantity('9999999999999999999999999999999999999G').asInteger()"),
            "EVAL ERROR: cannot convert value to integer");
  EXPECT_EQ(eval("ip('192.168.0.1.0')"),
            "EVAL ERROR: IP Address \"192.168.0.1.0\" parse error during conversion from string: "
            "ParseAddr(\"192.168.0.1.0\"): IPv4 address too long");
  EXPECT_EQ(eval("cidr('192.168.0.0/')"),
            "EVAL ERROR: network address parse error during conversion from string: network address parse error "
            "during conversion from string: netip.ParsePrefix(\"192.168.0.0/\"): bad bits after slash: \"\"");
  EXPECT_EQ(eval("url('../relative-path')"),
            "EVAL ERROR: URL parse error during conversion from string: parse \"../relative-path\": invalid URI for "
            "request");
  EXPECT_EQ(eval("'abc'.find('[a')"), "EVAL ERROR: Illegal regex: error parsing regexp: missing closing ]: `[a`");
  EXPECT_EQ(eval("[].min()"), "EVAL ERROR: min called on empty list");
  EXPECT_EQ(eval("'tacocat'.charAt(30)"), "EVAL ERROR: index out of range: 30");
  EXPECT_EQ(eval("'tacocat'.substring(4, 3)"), "EVAL ERROR: invalid substring range. start: 4, end: 3");
  EXPECT_EQ(eval("'%d %d %d'.format([0, 1])"), "EVAL ERROR: index 2 out of range");
}

TEST_F(CelKubeEnv, CompileErrors) {
  EXPECT_EQ(eval("isQuantity([1, 2, 3])"),
            "ERROR: found no matching overload for 'isQuantity' applied to '(list(int))'");
  EXPECT_EQ(eval("isIP(cidr('192.168.0.0/24'))"), "ERROR: found no matching overload for 'isIP' applied to '(net.CIDR)'");
  EXPECT_EQ(eval("cidr(192168)"), "ERROR: found no matching overload for 'cidr' applied to '(int)'");
  EXPECT_EQ(eval("'gums'.reverse()"), "ERROR: undeclared reference to 'reverse' (in container '')");
}

class AllowGets final : public Authorizer {
 public:
  AuthzDecision authorize(const AuthzAttributes& a) const override {
    if (a.verb == "get" && a.resource == "pods") return {AuthzDecision::Kind::kAllow, "ok", std::nullopt};
    return {AuthzDecision::Kind::kDeny, "denied", std::nullopt};
  }
};

TEST_F(CelKubeEnv, AuthorizerVariable) {
  Env env = kube_base_env();
  env.add_variable("authorizer", authorizer_type());
  auto shared = std::make_shared<const Env>(std::move(env));
  MapActivation activation;
  activation.set("authorizer", authorizer_value(std::make_shared<AllowGets>(), UserInfo{"alice", "", {}, {}}));
  EXPECT_EQ(eval("authorizer.group('').resource('pods').namespace('ns').check('get').allowed()", activation, shared),
            "true");
  EXPECT_EQ(eval("authorizer.group('').resource('pods').check('delete').reason()", activation, shared),
            "\"denied\"");
  EXPECT_EQ(eval("authorizer.group('').resource('pods').fieldSelector('spec.nodeName=n').labelSelector('a=b')"
                 ".check('get').allowed()",
                 activation, shared),
            "true");
  EXPECT_EQ(eval("authorizer.serviceAccount('ns', 'sa').path('/healthz').check('get').errored()", activation, shared),
            "false");
}

// The messages of ext.Strings' format validator for literal calls (cel-go's strings_test.go), and where they point.
TEST_F(CelKubeEnv, FormatCallsValidatedWhenCompiled) {
  auto validate = [](std::string_view expr) -> std::string {
    CheckResult checked = compile(*base(), expr);
    if (!checked.ast) return "ERROR: " + checked.issues.errors.at(0).message;
    Issues issues;
    validate_format_calls(*checked.ast, issues);
    if (issues.empty()) return "ok";
    return issues.to_display_string(checked.ast->source, checked.ast->source_info);
  };
  EXPECT_EQ(validate("'%d %s'.format([1, 'a'])"), "ok");
  EXPECT_EQ(validate("'%s %s'.format([[1, 'a'], {'k': b'x'}])"), "ok");
  EXPECT_EQ(validate("dyn('%d').format([1])"), "ok");
  EXPECT_EQ(validate("'string is %b'.format(['abc'])"),
            "ERROR: <input>:1:24: error during formatting: only integers and bools can be formatted as binary, "
            "was given string\n"
            " | 'string is %b'.format(['abc'])\n"
            " | .......................^");
  EXPECT_EQ(validate("'%d %d'.format([1, 2, 3])"),
            "ERROR: <input>:1:15: too many arguments supplied to string.format (expected 2, got 3)\n"
            " | '%d %d'.format([1, 2, 3])\n"
            " | ..............^");
  EXPECT_EQ(validate("'%d %d %d'.format([0, 1])").substr(0, 40), "ERROR: <input>:1:18: index 2 out of rang");
  EXPECT_EQ(validate("'%s'.format([[ip('1.2.3.4')]])").substr(0, 120),
            "ERROR: <input>:1:17: error during formatting: string clause can only be used on strings, bools, bytes, "
            "ints, doubles, ma");
  const std::string unrecognized = validate("'%E'.format([0.5])");
  EXPECT_EQ(unrecognized.substr(0, unrecognized.find('\n')),
            "ERROR: <input>:1:12: could not parse formatting clause: unrecognized formatting clause \"E\"");
}

TEST_F(CelKubeEnv, CompileKubeRunsTheFormatValidator) {
  EXPECT_TRUE(compile_kube(*base(), "'%d'.format([1])").ast.has_value());
  CheckResult refused = compile_kube(*base(), "'%d'.format(['a'])");
  EXPECT_FALSE(refused.ast.has_value());
  EXPECT_EQ(refused.message,
            "ERROR: <input>:1:14: error during formatting: decimal clause can only be used on integers, was given "
            "string\n | '%d'.format(['a'])\n | .............^");
  EXPECT_EQ(compile_kube(*base(), "1 +").message.substr(0, 22), "ERROR: <input>:1:4: Sy");
}

TEST_F(CelKubeEnv, StoredEnvironmentAddsMapInsert) {
  EXPECT_EQ(base()->find_function("cel.@mapInsert"), nullptr);
  EXPECT_NE(kube_stored_env().find_function("cel.@mapInsert"), nullptr);
}

}  // namespace
}  // namespace kapi::cel::ext::kube_env_test
