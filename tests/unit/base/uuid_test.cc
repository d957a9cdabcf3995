#include "base/uuid.h"

#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <string>

namespace kapi::base::uuid_test {
namespace {

TEST(UuidTest, IsAVersion4UuidAsGoogleUuidWritesIt) {
  const std::regex form("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}");
  EXPECT_TRUE(std::regex_match(new_uuid(), form));
}

// The bytes are drawn 16 UUIDs at a time: across refills, no UUID repeats.
TEST(UuidTest, NeverRepeatsAcrossRefillsOfTheRandomPool) {
  std::set<std::string> seen;
  for (int i = 0; i < 1000; ++i) EXPECT_TRUE(seen.insert(new_uuid()).second);
}

}  // namespace
}  // namespace kapi::base::uuid_test
