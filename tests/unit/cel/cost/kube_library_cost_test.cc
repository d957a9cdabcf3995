// kube's library costs end to end: estimate and run-time cost of expressions over kube's base environment, as
// kube 1.32's apiserver/pkg/cel/library/cost_test.go computes them (testCost: no presence-test cost, strings and
// bytes of unknown size estimated at most 12, mixed-type literals allowed, an authorizer that allows everything).
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "cel/compile.h"
#include "cel/cost.h"
#include "cel/ext/authz.h"
#include "cel/ext/kube_env.h"
#include "cel/program.h"

namespace kapi::cel::kube_library_cost_test {
namespace {

struct Case {
  std::string expr;
  CostEstimate estimate;
  std::uint64_t runtime;
};

class AllowAll final : public ext::Authorizer {
 public:
  ext::AuthzDecision authorize(const ext::AuthzAttributes&) const override {
    return {ext::AuthzDecision::Kind::kAllow, "", std::nullopt};
  }
};

// kube's testCostEstimator: any string or bytes node of unknown size has at most 12.
CostOptions kube_test_options() {
  CostOptions options;
  options.type_size_hints = false;
  options.node_sizes = [](const SizeQuery& node) -> std::optional<SizeEstimate> {
    if (node.type == nullptr) return std::nullopt;
    if (node.type->kind() == TypeKind::kString || node.type->kind() == TypeKind::kBytes) return SizeEstimate{0, 12};
    return std::nullopt;
  };
  return options;
}

// cel-go's and kube's cost tests plan their programs without the constant folding kube's servers turn on, so
// their figures are for such a plan.
const PlanOptions kTestHarnessPlan{.optimize = false, .presence_test_has_cost = false};

void expect_costs(const std::vector<Case>& cases) {
  auto env = std::make_shared<Env>(ext::kube_base_env());
  env->checker_options.homogeneous_aggregate_literals = false;  // kube's testCost env has no such validator
  env->add_variable("authorizer", ext::authorizer_type());
  MapActivation activation;
  activation.set("authorizer", ext::authorizer_value(std::make_shared<AllowAll>(), ext::UserInfo{}));
  for (const Case& c : cases) {
    SCOPED_TRACE(c.expr);
    CheckResult checked = compile(*env, c.expr);
    if (!checked.ast) {
      ADD_FAILURE() << checked.message;
      continue;
    }
    EXPECT_EQ(estimate_cost(*checked.ast, *env, kube_test_options()), c.estimate);
    const Program program =
      Program::plan(env, std::make_shared<const CheckedAst>(std::move(*checked.ast)), kTestHarnessPlan);
    const EvalResult result = program.eval(activation);
    EXPECT_FALSE(result.value.is_error()) << debug_string(result.value);
    EXPECT_EQ(result.cost, c.runtime);
  }
}

const char* const kInts = "[1, 2, 3, 4, 5]";
const char* const kUints = "[uint(1), uint(2), uint(3), uint(4), uint(5)]";
const char* const kDoubles = "[1.0, 2.0, 3.0, 4.0, 5.0]";
const char* const kBools = "[false, true, false, true, false]";
const char* const kStrings = "['012345678901', '012345678901', '012345678901', '012345678901', '012345678901']";
const char* const kBytes =
    "[bytes('012345678901'), bytes('012345678901'), bytes('012345678901'), bytes('012345678901'), "
    "bytes('012345678901')]";
const char* const kDurations = "[duration('1s'), duration('2s'), duration('3s'), duration('4s'), duration('5s')]";
const char* const kTimestamps =
    "[timestamp('2011-01-01T00:00:00.000+01:00'), timestamp('2011-01-02T00:00:00.000+01:00'), "
    "timestamp('2011-01-03T00:00:00.000+01:00'), timestamp('2011-01-04T00:00:00.000+01:00'), "
    "timestamp('2011-01-05T00:00:00.000+01:00')]";

std::string operator+(const char* list, const std::string& call) { return std::string(list) + call; }

TEST(CelKubeLibraryCost, Lists) {
  std::vector<Case> cases = {
      {kInts + std::string(".sum()"), {15, 15}, 15},
      {kUints + std::string(".sum()"), {20, 20}, 20},
      {kDoubles + std::string(".sum()"), {15, 15}, 15},
      {kDurations + std::string(".sum()"), {20, 20}, 20},
  };
  for (const char* op : {".isSorted()", ".max()", ".min()"}) {
    cases.push_back({kInts + std::string(op), {15, 15}, 15});
    cases.push_back({kUints + std::string(op), {20, 20}, 20});
    cases.push_back({kDoubles + std::string(op), {15, 15}, 15});
    cases.push_back({kBools + std::string(op), {15, 15}, 15});
    cases.push_back({kStrings + std::string(op), {15, 25}, 15});
    cases.push_back({kBytes + std::string(op), {25, 35}, 25});
    cases.push_back({kDurations + std::string(op), {20, 20}, 20});
    cases.push_back({kTimestamps + std::string(op), {20, 20}, 20});
  }
  for (const char* op : {".indexOf", ".lastIndexOf"}) {
    const std::string call(op);
    cases.push_back({kInts + call + "(3)", {15, 15}, 15});
    cases.push_back({kUints + call + "(uint(3))", {21, 21}, 21});
    cases.push_back({kDoubles + call + "(3.0)", {15, 15}, 15});
    cases.push_back({kBools + call + "(true)", {15, 15}, 15});
    cases.push_back({kStrings + call + "('x')", {15, 25}, 15});
    cases.push_back({kBytes + call + "(bytes('x'))", {26, 36}, 26});
    cases.push_back({kDurations + call + "(duration('3s'))", {21, 21}, 21});
    cases.push_back({kTimestamps + call + "(timestamp('2011-01-03T00:00:00.000+01:00'))", {21, 21}, 21});
    cases.push_back({"'01234567890123456789012345678901234567890123456789'" + call + "('123')", {5, 5}, 5});
  }
  expect_costs(cases);
}

TEST(CelKubeLibraryCost, Urls) {
  std::vector<Case> cases;
  for (const char* op : {".getScheme()", ".getHostname()", ".getHost()", ".getPort()", ".getEscapedPath()",
                         ".getQuery()"}) {
    cases.push_back({"url('https:://kubernetes.io/')" + std::string(op), {4, 4}, 4});
  }
  cases.push_back({"url('https:://kubernetes.io/') == url('https:://kubernetes.io/')", {7, 9}, 7});
  cases.push_back({"url('https:://kubernetes.io/') == url('http://x.b')", {5, 5}, 5});
  expect_costs(cases);
}

TEST(CelKubeLibraryCost, IpAndCidr) {
  std::vector<Case> cases;
  const std::string ipv4 = "ip('192.168.0.1')";
  const std::string ipv6 = "ip('2001:db8:3333:4444:5555:6666:7777:8888')";
  cases.push_back({ipv4, {2, 2}, 2});
  cases.push_back({ipv6, {4, 4}, 4});
  for (const char* op : {".family()", ".isUnspecified()", ".isLoopback()", ".isLinkLocalMulticast()",
                         ".isLinkLocalUnicast()", ".isGlobalUnicast()"}) {
    cases.push_back({ipv4 + op, {3, 3}, 3});
    cases.push_back({ipv6 + op, {5, 5}, 5});
  }
  cases.push_back({ipv4 + " == ip('192.168.0.1')", {5, 5}, 5});
  cases.push_back({ipv6 + " == ip('192.168.0.1')", {7, 7}, 7});
  cases.push_back({"ip.isCanonical('192.168.0.1')", {3, 3}, 3});
  cases.push_back({"ip.isCanonical('2001:db8:3333:4444:5555:6666:7777:8888')", {8, 8}, 8});
  cases.push_back({"ip.isCanonical('2001:db8::abcd')", {3, 3}, 3});

  const std::string cidr4 = "cidr('192.168.0.0/16')";
  const std::string cidr6 = "cidr('2001:db8::/32')";
  for (const std::string& cidr : {cidr4, cidr6}) {
    cases.push_back({cidr, {2, 2}, 2});
    for (const char* op : {".ip()", ".prefixLength()", ".masked()"}) cases.push_back({cidr + op, {3, 3}, 3});
    cases.push_back({cidr + " == cidr('2001:db8::/32')", {5, 5}, 5});
  }
  for (const char* op : {".containsCIDR(cidr('192.0.0.0/30'))", ".containsCIDR(cidr('192.168.0.0/16'))",
                         ".containsCIDR('192.0.0.0/30')", ".containsCIDR('192.168.0.0/16')"}) {
    cases.push_back({cidr4 + op, {7, 11}, 7});
  }
  cases.push_back({cidr4 + ".containsIP(ip('192.0.0.1'))", {4, 7}, 4});
  cases.push_back({cidr4 + ".containsIP(ip('192.169.0.1'))", {5, 8}, 5});
  cases.push_back({cidr4 + ".containsIP('192.0.0.1')", {4, 7}, 4});
  cases.push_back({cidr4 + ".containsIP('192.169.0.1')", {5, 8}, 5});
  for (const char* op : {".containsCIDR(cidr('2001:db8::/126'))", ".containsCIDR(cidr('2001:db8::/32'))",
                         ".containsCIDR('2001:db8::/126')", ".containsCIDR('2001:db8::/32')"}) {
    cases.push_back({cidr6 + op, {7, 11}, 7});
  }
  cases.push_back({cidr6 + ".containsIP(ip('2001:db8:3333:4444:5555:6666:7777:8888'))", {7, 10}, 7});
  cases.push_back({cidr6 + ".containsIP(ip('2001:db8::1'))", {5, 8}, 5});
  cases.push_back({cidr6 + ".containsIP('2001:db8:3333:4444:5555:6666:7777:8888')", {7, 10}, 7});
  cases.push_back({cidr6 + ".containsIP('2001:db8::1')", {5, 8}, 5});
  expect_costs(cases);
}

TEST(CelKubeLibraryCost, Strings) {
  expect_costs({
      {"'ABCDEFGHIJ abcdefghij'.lowerAscii()", {3, 3}, 3},
      {"'ABCDEFGHIJ abcdefghij'.lowerAscii() == 'abcdefghij ABCDEFGHIJ'.lowerAscii()", {7, 9}, 9},
      {"'ABCDEFGHIJ abcdefghij'.upperAscii()", {3, 3}, 3},
      {"'ABCDEFGHIJ abcdefghij'.upperAscii() == 'abcdefghij ABCDEFGHIJ'.upperAscii()", {7, 9}, 9},
      {"strings.quote('ABCDEFGHIJ abcdefghij')", {3, 3}, 3},
      {"strings.quote('ABCDEFGHIJ abcdefghij') == strings.quote('ABCDEFGHIJ abcdefghij')", {7, 11}, 9},
      {"'abc 123 def 123'.replace('123', '456')", {3, 3}, 3},
      {"'abc 123 def 123'.replace('', 'x')", {3, 3}, 3},
      {"'abc 123 def 123'.replace('123', '')", {3, 3}, 3},
      {"'abc 123 def 123'.replace('123', '456', 1)", {3, 3}, 3},
      {"'abc 123 def 123'.split(' ')", {3, 3}, 3},
      {"'abc 123 def 123'.split(' ', 1)", {3, 3}, 3},
      {"'abc 123 def 123'.substring(5)", {2, 2}, 2},
      {"'abc 123 def 123'.substring(5, 8)", {2, 2}, 2},
      {"'  abc 123 def 123  '.trim()", {2, 2}, 2},
      {"['aa', 'bb', 'cc', 'd', 'e', 'f', 'g', 'h', 'i', 'j'].join(' ')", {11, 23}, 15},
      {"['aa', 'bb', 'cc', 'd', 'e', 'f', 'g', 'h', 'i', 'j'].join()", {10, 22}, 13},
      {"'abc 123 def 123'.find('123')", {2, 2}, 2},
      {"'abc 123 def 123'.findAll('123')", {2, 2}, 2},
      {"'abc 123 def 123'.findAll('123', 1)", {2, 2}, 2},
  });
}

TEST(CelKubeLibraryCost, Authz) {
  const std::string resource =
      "authorizer.group('apps').resource('deployments').subresource('status').namespace('test').name('backend')";
  const std::string selector = "'spec.nodeName=example-node-name.fully.qualified.domain.name.example.com'";
  expect_costs({
      {"authorizer.path('/healthz')", {2, 2}, 2},
      {resource, {6, 6}, 6},
      {"authorizer.group('').resource('pods').fieldSelector(" + selector + ")", {1821, 1821}, 1821},
      {"authorizer.group('').resource('pods').labelSelector(" + selector + ")", {1821, 1821}, 1821},
      {"authorizer.path('/healthz').check('get').allowed()", {350003, 350003}, 350003},
      {resource + ".check('create').allowed()", {350007, 350007}, 350007},
      {resource + ".check('create').errored()", {350007, 350007}, 350007},
  });
}

TEST(CelKubeLibraryCost, Quantity) {
  expect_costs({
      {R"(quantity("12Mi"))", {1, 1}, 1},
      {R"(isQuantity("20"))", {1, 1}, 1},
      {R"(isQuantity("20M"))", {1, 1}, 1},
      {R"(quantity("200M") == quantity("200M"))", {3, 3}, 3},
      {R"(quantity("200M") == quantity("0.2G") && quantity("0.2G") == quantity("200M"))", {3, 6}, 6},
      {R"(quantity("2M") == quantity("0.002G") && quantity("2000k") == quantity("2M") && )"
       R"(quantity("0.002G") == quantity("2000k"))",
       {3, 9}, 9},
      {R"(quantity("50M").isLessThan(quantity("50Mi")))", {3, 3}, 3},
      {R"(quantity("50Mi").isGreaterThan(quantity("50M")))", {3, 3}, 3},
      {R"(quantity("200M").compareTo(quantity("0.2G")) > 0)", {4, 4}, 4},
      {R"(quantity("50k").add(quantity("20")) == quantity("50.02k"))", {5, 5}, 5},
      {R"(quantity("50k").sub(quantity("20")) == quantity("49.98k"))", {5, 5}, 5},
      {R"(quantity("50k").sub(20) == quantity("49980"))", {4, 4}, 4},
      {R"(quantity("50k").add(20).sub(quantity("100k")).asInteger() > 0)", {6, 6}, 6},
      {R"(quantity("50k").add(20).sub(quantity("100k")).sub(-50000).asInteger() > 0)", {7, 7}, 7},
      {R"(quantity("50k").asInteger() > 0)", {3, 3}, 3},
      {R"(quantity("50").isInteger())", {2, 2}, 2},
      {R"(quantity("50.703k").asApproximateFloat() > 0.0)", {3, 3}, 3},
  });
}

TEST(CelKubeLibraryCost, Sets) {
  expect_costs({
      {"sets.contains([], [])", {21, 21}, 21},
      {"sets.contains([1], [])", {21, 21}, 21},
      {"sets.contains([1], [1])", {22, 22}, 22},
      {"sets.contains([1], [1, 1])", {23, 23}, 23},
      {"sets.contains([2, 1], [1])", {23, 23}, 23},
      {"sets.contains([1, 2, 3, 4], [2, 3])", {29, 29}, 29},
      {"sets.contains([1], [1.0, 1])", {23, 23}, 23},
      {"sets.contains([1, 2.0, 3u], [1.0, 2u, 3])", {30, 30}, 30},
      {"sets.contains([[1], [2, 3]], [[2, 3.0]])", {53, 53}, 53},
      {"!sets.contains([1], [2])", {23, 23}, 23},
      {"!sets.contains([1], [\"1\", 1])", {24, 24}, 24},
      {"sets.equivalent([], [])", {21, 21}, 21},
      {"sets.equivalent([1], [1, 1])", {25, 25}, 25},
      {"sets.equivalent([1, 2, 3], [3u, 2.0, 1])", {39, 39}, 39},
      {"sets.equivalent([[1.0], [2, 3]], [[1], [2, 3.0]])", {69, 69}, 69},
      {"!sets.equivalent([1, 2], [2u, 2, 2.0])", {34, 34}, 34},
      {"sets.intersects([1], [1])", {22, 22}, 22},
      {"sets.intersects([1, 2], [2u, 2, 2.0])", {27, 27}, 27},
      {"sets.intersects([[1], [2, 3]], [[1, 2], [2, 3.0]])", {65, 65}, 65},
      {"!sets.intersects([], [])", {22, 22}, 22},
      {"!sets.intersects([1], [\"1\", 2])", {24, 24}, 24},
  });
}

TEST(CelKubeLibraryCost, Format) {
  expect_costs({
      {R"(format.named("dns1123subdomain"))", {1, 1}, 1},
      {R"(format.named("dns1123Label").value() == format.named("dns1123Label").value())", {5, 11}, 5},
  });
  // The estimate assumes the longest named-format regex (128); the run-time cost uses the format's own
  // (CostSized::max_regex_size of the format value): 17 for dns1123Subdomain, 10 for dns1123Label in kube.
  auto env = ext::kube_base_env();
  for (const char* text : {R"(format.named("dns1123Subdomain").value().validate("my-name"))",
                           R"(format.named("dns1123Label").value().validate("my-name"))"}) {
    SCOPED_TRACE(text);
    CheckResult checked = compile(env, text);
    ASSERT_TRUE(checked.ast.has_value()) << checked.message;
    EXPECT_EQ(estimate_cost(*checked.ast, env, kube_test_options()), (CostEstimate{34, 34}));
  }
}

}  // namespace
}  // namespace kapi::cel::kube_library_cost_test
