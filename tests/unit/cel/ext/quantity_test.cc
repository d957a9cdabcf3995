// kube's quantity library (library/quantity_test.go), over resource.Quantity as base/quantity.h models it.
#include "cel/ext/ext_util.h"
#include "cel/ext/kube_types.h"
#include "tests/unit/cel/ext/ext_testing.h"

namespace kapi::cel::ext::quantity_test {
namespace {

using testing::call;
using testing::error_of;

class CelQuantity : public ::testing::Test {
 protected:
  Value q(std::string text) { return call(lib_, "string_to_quantity", {Value(std::move(text))}); }
  Value run(std::string_view id, std::vector<Value> args) { return call(lib_, id, std::move(args)); }
  bool same(Value a, Value b) { return equals(a, b); }
  Library lib_ = quantity_library();
};

TEST_F(CelQuantity, ParseAndItsErrors) {
  Value twelve = q("12Mi");
  ASSERT_NE(opaque_as<QuantityValue>(twelve), nullptr);
  EXPECT_EQ(twelve.type_name(), "kubernetes.Quantity");
  EXPECT_EQ(error_of(q("10Mo")),
            "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
  EXPECT_EQ(error_of(q("10Mm")), "unable to parse quantity's suffix");
  EXPECT_EQ(error_of(q("")),
            "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
  EXPECT_TRUE(same(run("is_quantity_string", {"20"}), Value(true)));
  EXPECT_TRUE(same(run("is_quantity_string", {"20M"}), Value(true)));
  EXPECT_TRUE(same(run("is_quantity_string", {"20Mi"}), Value(true)));
  EXPECT_TRUE(same(run("is_quantity_string", {"20Mo"}), Value(false)));
  EXPECT_TRUE(same(run("is_quantity_string", {"10Mm"}), Value(false)));
}

TEST_F(CelQuantity, EqualityIsByValue) {
  EXPECT_TRUE(same(q("200M"), q("200M")));
  EXPECT_TRUE(same(q("200M"), q("0.2G")));
  EXPECT_TRUE(same(q("2M"), q("0.002G")));
  EXPECT_TRUE(same(q("2000k"), q("2M")));
  EXPECT_FALSE(same(q("200M"), q("0.3G")));
}

TEST_F(CelQuantity, Comparisons) {
  EXPECT_TRUE(same(run("quantity_is_less_than", {q("50M"), q("50Mi")}), Value(true)));
  EXPECT_TRUE(same(run("quantity_is_less_than", {q("50M"), q("100M")}), Value(true)));
  EXPECT_TRUE(same(run("quantity_is_less_than", {q("100M"), q("50M")}), Value(false)));
  EXPECT_TRUE(same(run("quantity_is_greater_than", {q("50Mi"), q("50M")}), Value(true)));
  EXPECT_TRUE(same(run("quantity_is_greater_than", {q("150Mi"), q("100Mi")}), Value(true)));
  EXPECT_TRUE(same(run("quantity_is_greater_than", {q("50M"), q("100M")}), Value(false)));
  EXPECT_TRUE(same(run("quantity_compare_to", {q("200M"), q("0.2G")}), Value(std::int64_t{0})));
  EXPECT_TRUE(same(run("quantity_compare_to", {q("50M"), q("50Mi")}), Value(std::int64_t{-1})));
  EXPECT_TRUE(same(run("quantity_compare_to", {q("50Mi"), q("50M")}), Value(std::int64_t{1})));
  EXPECT_TRUE(same(run("quantity_sign", {q("-1")}), Value(std::int64_t{-1})));
  EXPECT_TRUE(same(run("quantity_sign", {q("0")}), Value(std::int64_t{0})));
}

TEST_F(CelQuantity, Arithmetic) {
  EXPECT_TRUE(same(run("quantity_add", {q("50k"), q("20")}), q("50.02k")));
  EXPECT_TRUE(same(run("quantity_is_less_than", {run("quantity_add_int", {q("50k"), Value(std::int64_t{20})}),
                                                  q("50020")}),
                   Value(false)));
  EXPECT_TRUE(same(run("quantity_sub", {q("50k"), q("20")}), q("49.98k")));
  EXPECT_TRUE(same(run("quantity_sub_int", {q("50k"), Value(std::int64_t{20})}), q("49980")));
  Value chain = run("quantity_sub", {run("quantity_add_int", {q("50k"), Value(std::int64_t{20})}), q("100k")});
  EXPECT_TRUE(same(run("quantity_get_int", {chain}), Value(std::int64_t{-49980})));
  chain = run("quantity_sub_int", {chain, Value(std::int64_t{-50000})});
  EXPECT_TRUE(same(run("quantity_get_int", {chain}), Value(std::int64_t{20})));
}

TEST_F(CelQuantity, IntegersAndFloatsAsKubeHoldsThem) {
  EXPECT_TRUE(same(run("quantity_get_int", {q("50k")}), Value(std::int64_t{50000})));
  EXPECT_EQ(error_of(run("quantity_get_int", {q("9999999999999999999999999999999999999G")})),
            "cannot convert value to integer");
  EXPECT_TRUE(same(run("quantity_is_integer", {q("9999999999999999999999999999999999999G")}), Value(false)));
  EXPECT_TRUE(same(run("quantity_is_integer", {q("50")}), Value(true)));
  // The int64 fast path rounds a fraction away from zero; a value kube holds as inf.Dec is never an integer.
  EXPECT_TRUE(same(run("quantity_get_int", {q("0.5")}), Value(std::int64_t{1})));
  EXPECT_TRUE(same(run("quantity_get_int", {q("-1.5")}), Value(std::int64_t{-2})));
  EXPECT_TRUE(same(run("quantity_is_integer", {q("1.0000000001")}), Value(false)));
  EXPECT_TRUE(same(run("quantity_get_float", {q("50.703k")}), Value(50703.0)));
  EXPECT_TRUE(same(run("quantity_get_float", {q("1.5")}), Value(1.5)));
  EXPECT_TRUE(same(run("quantity_get_float", {q("1Gi")}), Value(1073741824.0)));
  EXPECT_TRUE(same(run("quantity_get_float", {q("100m")}), Value(0.1)));
}

}  // namespace
}  // namespace kapi::cel::ext::quantity_test
