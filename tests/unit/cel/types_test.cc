#include "cel/types.h"

#include <gtest/gtest.h>

#include "cel/env.h"

namespace kapi::cel::types_test {
namespace {

TEST(CelTypes, NamesReadAsCelGoPrintsThem) {
  EXPECT_EQ(Type::list(Type::int_type()).to_string(), "list(int)");
  EXPECT_EQ(Type::map(Type::string_type(), Type::dyn()).to_string(), "map(string, dyn)");
  EXPECT_EQ(Type::optional(Type::string_type()).to_string(), "optional_type(string)");
  EXPECT_EQ(Type::timestamp().to_string(), "google.protobuf.Timestamp");
}

TEST(CelTypes, SizeHintsDoNotChangeIdentity) {
  EXPECT_EQ(Type::string_type().with_max_elements(3), Type::string_type());
  EXPECT_NE(Type::list(Type::int_type()), Type::list(Type::uint_type()));
}

TEST(CelEnv, OverloadsOfOneFunctionMergeAndConflictsAreRefused) {
  Env env;
  env.add_function({"f", {{.id = "f_int", .params = {Type::int_type()}, .result = Type::int_type()}}});
  env.add_function({"f", {{.id = "f_string", .params = {Type::string_type()}, .result = Type::int_type()}}});
  ASSERT_NE(env.find_function("f"), nullptr);
  EXPECT_EQ(env.find_function("f")->overloads.size(), 2u);
  EXPECT_THROW(env.add_function({"f", {{.id = "f_int", .params = {Type::uint_type()}, .result = Type::int_type()}}}),
               std::logic_error);
}

}  // namespace
}  // namespace kapi::cel::types_test
