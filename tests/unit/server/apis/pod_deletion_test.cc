// Graceful pod deletion as kube's pod strategy and BeforeDelete decide it: who is deleted at once, how far the
// deadline is set, and that a later DELETE may only shorten it.
#include "server/apis/core/core_validation.h"
#include "server/apis/core/pod_deletion.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <chrono>

namespace kapi::apis::core {
namespace {

namespace json = boost::json;

json::object pod(std::string_view node, std::string_view phase = "Running") {
  json::object object = json::parse(R"({"metadata":{"name":"p","namespace":"default"},
      "spec":{"terminationGracePeriodSeconds":30,"containers":[{"name":"c","image":"i"}]}})")
                            .as_object();
  if (!node.empty()) object["spec"].as_object()["nodeName"] = node;
  object["status"] = json::object{{"phase", phase}};
  return object;
}

std::int64_t now() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::int64_t deadline(const json::object& pod) {
  return parse_time(pod.at("metadata").at("deletionTimestamp").as_string());
}

TEST(GracefulPodDeletion, APodNoNodeTookOrThatFinishedGoesAtOnce) {
  EXPECT_FALSE(graceful_pod_deletion(pod(""), std::nullopt));
  EXPECT_FALSE(graceful_pod_deletion(pod("", "Running"), 60));
  EXPECT_FALSE(graceful_pod_deletion(pod("node-1", "Succeeded"), std::nullopt));
  EXPECT_FALSE(graceful_pod_deletion(pod("node-1", "Failed"), std::nullopt));
  EXPECT_FALSE(graceful_pod_deletion(pod("node-1"), 0)) << "--grace-period=0 deletes at once";
}

TEST(GracefulPodDeletion, ABoundPodIsMarkedItsGracePeriodAhead) {
  auto marked = graceful_pod_deletion(pod("node-1"), std::nullopt);
  ASSERT_TRUE(marked);
  EXPECT_EQ(marked->at("metadata").at("deletionGracePeriodSeconds"), 30);
  EXPECT_NEAR(deadline(*marked), now() + 30, 2);

  auto asked = graceful_pod_deletion(pod("node-1"), 5);
  ASSERT_TRUE(asked);
  EXPECT_EQ(asked->at("metadata").at("deletionGracePeriodSeconds"), 5);
  EXPECT_NEAR(deadline(*asked), now() + 5, 2);

  auto negative = graceful_pod_deletion(pod("node-1"), -3);
  ASSERT_TRUE(negative);
  EXPECT_EQ(negative->at("metadata").at("deletionGracePeriodSeconds"), 1) << "a negative period becomes 1";
}

TEST(GracefulPodDeletion, ALaterDeleteMayOnlyShortenThePeriod) {
  auto marked = graceful_pod_deletion(pod("node-1"), std::nullopt);
  ASSERT_TRUE(marked);
  const std::int64_t first = deadline(*marked);

  auto same = graceful_pod_deletion(*marked, std::nullopt);
  ASSERT_TRUE(same);
  EXPECT_EQ(*same, *marked) << "a pending deletion is left as it is";
  auto longer = graceful_pod_deletion(*marked, 60);
  ASSERT_TRUE(longer);
  EXPECT_EQ(*longer, *marked);

  auto shorter = graceful_pod_deletion(*marked, 10);
  ASSERT_TRUE(shorter);
  EXPECT_EQ(shorter->at("metadata").at("deletionGracePeriodSeconds"), 10);
  EXPECT_EQ(deadline(*shorter), first - 20);

  EXPECT_FALSE(graceful_pod_deletion(*marked, 0)) << "the kubelet's final delete";
  json::object due = *marked;
  due["metadata"].as_object()["deletionGracePeriodSeconds"] = 0;
  EXPECT_FALSE(graceful_pod_deletion(due, std::nullopt));
}

}  // namespace
}  // namespace kapi::apis::core
