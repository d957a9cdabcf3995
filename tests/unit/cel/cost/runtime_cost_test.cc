// Run-time call costs; figures from cel-go v0.22's interpreter/runtimecost_test.go (TestRuntimeCost) and kube
// 1.32's library/cost_test.go, less the per-node costs the interpreter adds (identifiers 1, list literals 10).
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "cel/cost.h"

namespace kapi::cel::runtime_cost_test {
namespace {

std::uint64_t cost(std::string_view function, std::string_view overload, std::vector<Value> args,
                   const Value& result = Value()) {
  return call_cost(function, overload, args, result);
}

Value ints(std::initializer_list<std::int64_t> values) {
  std::vector<Value> elements;
  for (std::int64_t v : values) elements.emplace_back(v);
  return Value::list(std::move(elements));
}

Value strings(std::initializer_list<const char*> values) {
  std::vector<Value> elements;
  for (const char* v : values) elements.emplace_back(v);
  return Value::list(std::move(elements));
}

// An extension value with kube's sizes (an IP's bytes, a CIDR's prefix bytes, a format's regex size).
class FakeExtension final : public Opaque, public CostSized {
 public:
  FakeExtension(std::string type_name, std::optional<std::uint64_t> size, std::optional<std::uint64_t> regex_size = {})
      : type_name_(std::move(type_name)), size_(size), regex_size_(regex_size) {}
  std::string_view type_name() const override { return type_name_; }
  bool equals(const Opaque& other) const override { return &other == this; }
  std::optional<std::uint64_t> cost_size() const override { return size_; }
  std::optional<std::uint64_t> max_regex_size() const override { return regex_size_; }

 private:
  std::string type_name_;
  std::optional<std::uint64_t> size_;
  std::optional<std::uint64_t> regex_size_;
};

Value extension(std::string type_name, std::optional<std::uint64_t> size, std::optional<std::uint64_t> regex = {}) {
  return Value(std::shared_ptr<const Opaque>(std::make_shared<FakeExtension>(std::move(type_name), size, regex)));
}

TEST(CelRuntimeCost, StandardFunctionsScaleWithSizes) {
  const std::string five_hundred(500, 'x');
  // input.matches('[0-9]'): ceil(501 x 0.1) x ceil(5 x 0.25).
  EXPECT_EQ(cost("matches", "matches_string", {five_hundred, "[0-9]"}), 102u);
  EXPECT_EQ(cost("matches", "matches_string", {five_hundred, "\\d+a\\d+b"}), 102u);
  EXPECT_EQ(cost("matches", "matches_string", {"123", "[0-9]"}), 2u);
  EXPECT_EQ(cost("contains", "contains_string", {five_hundred, five_hundred}), 2500u);
  EXPECT_EQ(cost("startsWith", "starts_with_string", {"idc", five_hundred}), 1u);
  EXPECT_EQ(cost("endsWith", "ends_with_string", {"idc", five_hundred}), 1u);
  EXPECT_EQ(cost("string", "bytes_to_string", {Bytes{five_hundred}}), 50u);
  EXPECT_EQ(cost("bytes", "string_to_bytes", {five_hundred}), 50u);
  EXPECT_EQ(cost("string", "int64_to_string", {std::int64_t{1}}), 1u);
  EXPECT_EQ(cost("_==_", "equals", {"12345678901234567890", "123456789012345678901234567890"}), 2u);
  EXPECT_EQ(cost("_==_", "equals", {std::int64_t{1}, std::int64_t{2}}), 1u);
  EXPECT_EQ(cost("_<_", "less_int64", {std::int64_t{1}, std::int64_t{2}}), 1u);
  EXPECT_EQ(cost("@in", "in_list", {std::int64_t{2}, ints({1, 2, 3})}), 3u);
  EXPECT_EQ(cost("@in", "in_map", {std::int64_t{2}, Value::map({})}), 1u);
  EXPECT_EQ(cost("size", "size_string", {"123"}), 1u);
  // "abcdefg".contains(str1 + str2) with "val1" and "val2222222".
  EXPECT_EQ(cost("_+_", "add_string", {"val1", "val2222222"}), 2u);
  EXPECT_EQ(cost("contains", "contains_string", {"abcdefg", "val1val2222222"}), 2u);
  EXPECT_EQ(cost("_+_", "add_list", {ints({1}), ints({2})}), 1u);
  // Sizes of strings are code points, as cel-go's String.Size().
  EXPECT_EQ(actual_size(Value("h\xC3\xA9llo")), 5u);
  EXPECT_EQ(actual_size(Value(Bytes{"h\xC3\xA9llo"})), 6u);
  // Without a single resolved overload cel-go has no id to go by: 1.
  EXPECT_EQ(cost("contains", "", {five_hundred, five_hundred}), 1u);
}

TEST(CelRuntimeCost, KubeListFunctionsTraverseTheList) {
  EXPECT_EQ(cost("sum", "list_int_sum", {ints({1, 2, 3, 4, 5})}), 5u);
  EXPECT_EQ(cost("isSorted", "list_string_is_sorted",
                 {strings({"012345678901", "012345678901", "012345678901", "012345678901", "012345678901"})}),
            5u);
  EXPECT_EQ(cost("indexOf", "list_index_of", {ints({1, 2, 3, 4, 5}), std::int64_t{3}}), 5u);
  // On a string: a tenth of its bytes, rounded down.
  EXPECT_EQ(cost("indexOf", "string_index_of_string", {std::string(50, '0'), "123"}), 5u);
  EXPECT_EQ(cost("lastIndexOf", "string_last_index_of_string", {std::string(19, '0'), "1"}), 1u);
}

TEST(CelRuntimeCost, KubeStringFunctions) {
  EXPECT_EQ(cost("lowerAscii", "string_lower_ascii", {"ABCDEFGHIJ abcdefghij"}), 3u);
  EXPECT_EQ(cost("replace", "string_replace_string_string", {"abc 123 def 123", "123", "456"}), 3u);
  EXPECT_EQ(cost("split", "string_split_string", {"abc 123 def 123", " "}), 3u);
  EXPECT_EQ(cost("substring", "string_substring_int", {"abc 123 def 123", std::int64_t{5}}), 2u);
  EXPECT_EQ(cost("trim", "string_trim", {"  abc 123 def 123  "}), 2u);
  EXPECT_EQ(cost("strings.quote", "strings_quote", {"ABCDEFGHIJ abcdefghij"}), 3u);
  // join charges for the result: "aa bb cc d e f g h i j".
  EXPECT_EQ(cost("join", "list_join_string", {strings({"aa", "bb"}), " "}, Value("aa bb cc d e f g h i j")), 5u);
  EXPECT_EQ(cost("join", "list_join", {strings({"aa"})}, Value("aabbccdefghij")), 3u);
  EXPECT_EQ(cost("find", "string_find_string", {"abc 123 def 123", "123"}), 2u);
  EXPECT_EQ(cost("findAll", "string_find_all_string", {"abc 123 def 123", "123"}), 2u);
  EXPECT_EQ(cost("jsonpatch.escapeKey", "string_jsonpatch_escape_key", {"abc/def~ abc/def~"}), 2u);
  EXPECT_EQ(cost("url", "string_to_url", {"https:://kubernetes.io/"}), 3u);
  EXPECT_EQ(cost("getScheme", "url_get_scheme", {extension("kubernetes.URL", std::nullopt)}), 1u);
}

TEST(CelRuntimeCost, KubeNetworkFunctionsUseAddressSizes) {
  EXPECT_EQ(cost("ip", "string_to_ip", {"192.168.0.1"}), 2u);
  EXPECT_EQ(cost("ip", "string_to_ip", {"2001:db8:3333:4444:5555:6666:7777:8888"}), 4u);
  EXPECT_EQ(cost("ip.isCanonical", "ip_is_canonical", {"192.168.0.1"}), 3u);
  EXPECT_EQ(cost("ip.isCanonical", "ip_is_canonical", {"2001:db8:3333:4444:5555:6666:7777:8888"}), 8u);
  EXPECT_EQ(cost("cidr", "string_to_cidr", {"192.168.0.0/16"}), 2u);
  const Value cidr16 = extension("net.CIDR", 2);
  const Value cidr32 = extension("net.CIDR", 4);
  EXPECT_EQ(cost("ip", "cidr_ip", {cidr16}), 1u);
  EXPECT_EQ(cost("family", "ip_family", {extension("net.IP", 4)}), 1u);
  // cidr('192.168.0.0/16').containsIP(ip('192.0.0.1')): ceil((2 + 2) x 0.1).
  EXPECT_EQ(cost("containsIP", "cidr_contains_ip_ip", {cidr16, extension("net.IP", 4)}), 1u);
  EXPECT_EQ(cost("containsIP", "cidr_contains_ip_string", {cidr16, "192.0.0.1"}), 2u);
  // containsCIDR adds the mask: ceil(4 x 0.1) + ceil(2 x 0.1) + 1 = 3, and 1 more for parsing a string.
  EXPECT_EQ(cost("containsCIDR", "cidr_contains_cidr", {cidr16, cidr32}), 3u);
  EXPECT_EQ(cost("containsCIDR", "cidr_contains_cidr_string", {cidr16, "192.0.0.0/30"}), 5u);
  EXPECT_EQ(cost("_==_", "equals", {extension("net.IP", 16), extension("net.IP", 16)}), 1u);
}

TEST(CelRuntimeCost, KubeQuantityFormatAuthzAndSelectors) {
  EXPECT_EQ(cost("quantity", "string_to_quantity", {"12Mi"}), 1u);
  EXPECT_EQ(cost("isQuantity", "is_quantity_string", {"20M"}), 1u);
  const Value quantity = extension("kubernetes.Quantity", std::nullopt);
  EXPECT_EQ(cost("add", "quantity_add", {quantity, quantity}), 1u);
  EXPECT_EQ(cost("_==_", "equals", {quantity, quantity}), 1u);
  // validate("my-name"): ceil(8 x 0.1) x ceil(max regex x 0.25).
  EXPECT_EQ(cost("validate", "format-validate", {extension("kubernetes.NamedFormat", std::nullopt, 60), "my-name"}),
            15u);
  EXPECT_EQ(cost("validate", "format-validate", {extension("kubernetes.NamedFormat", std::nullopt, 30), "my-name"}),
            8u);
  EXPECT_EQ(cost("format.named", "format-named", {"dns1123Label"}), 1u);
  const Value authorizer = extension("kubernetes.authorization.Authorizer", std::nullopt);
  EXPECT_EQ(cost("check", "resourcecheck_check", {authorizer, "create"}), 350000u);
  EXPECT_EQ(cost("path", "authorizer_path", {authorizer, "/healthz"}), 1u);
  EXPECT_EQ(cost("allowed", "decision_allowed", {authorizer}), 1u);
  // 10 + ceil(71 x 0.1) = 8 + ceil(ceil(71 x 0.5) x 50) = 1800.
  const std::string selector = "spec.nodeName=example-node-name.fully.qualified.domain.name.example.com";
  EXPECT_EQ(cost("fieldSelector", "resourcecheck_fieldselector", {authorizer, selector}), 1818u);
  EXPECT_EQ(cost("labelSelector", "resourcecheck_labelselector", {authorizer, selector}), 1818u);
}

TEST(CelRuntimeCost, SetsCostTheProductOfSizes) {
  EXPECT_EQ(cost("sets.contains", "list_sets_contains_list", {ints({}), ints({})}), 1u);
  EXPECT_EQ(cost("sets.contains", "list_sets_contains_list", {ints({1, 2, 3, 4}), ints({2, 3})}), 9u);
  EXPECT_EQ(cost("sets.intersects", "list_sets_intersects_list", {ints({1, 2}), ints({2, 2, 2})}), 7u);
  EXPECT_EQ(cost("sets.equivalent", "list_sets_equivalent_list", {ints({1, 2, 3}), ints({3, 2, 1})}), 19u);
}

}  // namespace
}  // namespace kapi::cel::runtime_cost_test
