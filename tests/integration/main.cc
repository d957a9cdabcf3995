#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace {

// KAPI_TEST_SHARD=i/n runs every n-th test suite, starting at the i-th (from 0), of those the filter selects.
// Whole suites rather than gtest's per-test shards: each suite starts its own server (and etcd) once, and these
// suites spend most of their time waiting on them, so meson runs the shards side by side on CI's two cores.
void keep_only_this_shard() {
  const char* shard = std::getenv("KAPI_TEST_SHARD");
  if (shard == nullptr) return;
  const std::string spec(shard);
  const auto slash = spec.find('/');
  const int index = std::stoi(spec.substr(0, slash));
  const int count = std::stoi(spec.substr(slash + 1));
  std::string others;
  const auto& tests = *::testing::UnitTest::GetInstance();
  for (int i = 0; i < tests.total_test_suite_count(); ++i) {
    if (i % count == index) continue;
    others += (others.empty() ? "" : ":") + std::string(tests.GetTestSuite(i)->name()) + ".*";
  }
  if (others.empty()) return;
  std::string filter = GTEST_FLAG_GET(filter);
  filter += (filter.find('-') == std::string::npos ? "-" : ":") + others;
  GTEST_FLAG_SET(filter, filter);
}

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  keep_only_this_shard();
  return RUN_ALL_TESTS();
}
