#include "bench/scenarios/kube_api.h"

#include <gtest/gtest.h>

namespace kapi::bench::body_template_test {
namespace {

TEST(BodyTemplateTest, EveryPlaceholderTakesTheName) {
  EXPECT_EQ(fill_body_template(R"({"metadata":{"name":"{name}"},"spec":{"id":"{name}-x"}})", "w-7"),
            R"({"metadata":{"name":"w-7"},"spec":{"id":"w-7-x"}})");
}

TEST(BodyTemplateTest, ATemplateWithoutPlaceholderIsSentAsItIs) {
  EXPECT_EQ(fill_body_template(R"({"a":{"b":1}})", "n"), R"({"a":{"b":1}})");
  EXPECT_EQ(fill_body_template("", "n"), "");
}

TEST(BodyTemplateTest, BracesThatAreNotThePlaceholderStay) {
  EXPECT_EQ(fill_body_template("{nam}{name}{name", "x"), "{nam}x{name");
}

}  // namespace
}  // namespace kapi::bench::body_template_test
