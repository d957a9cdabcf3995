// Graceful pod deletion as kube's pod strategy (CheckGracefulDelete) and rest.BeforeDelete decide it: who is
// deleted at once, how far the deadline is set, and that a later DELETE may only shorten it.
#include "server/apis/core/core_validation.h"
#include "server/apis/core/pod_deletion.h"
#include "server/registry/deletion.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <chrono>

namespace kapi::apis::core::pod_deletion_test {
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

class PodRule final : public registry::Strategy {
 public:
  std::optional<std::int64_t> graceful_deletion_period(const json::object& pod,
                                                      std::optional<std::int64_t> requested) const override {
    return pod_deletion_grace_period(pod, requested);
  }
};

// before_delete with the pod strategy's rule: the pod as marked, and the verdict.
std::pair<json::object, registry::GracefulDeletion> deleted(json::object object, std::optional<std::int64_t> grace) {
  const PodRule rule;
  registry::GracefulDeletion verdict = registry::before_delete(rule, object, grace);
  return {std::move(object), verdict};
}

TEST(GracefulPodDeletion, APodNoNodeTookOrThatFinishedHasNoGracePeriod) {
  EXPECT_EQ(pod_deletion_grace_period(pod(""), std::nullopt), 0);
  EXPECT_EQ(pod_deletion_grace_period(pod("", "Running"), 60), 0);
  EXPECT_EQ(pod_deletion_grace_period(pod("node-1", "Succeeded"), std::nullopt), 0);
  EXPECT_EQ(pod_deletion_grace_period(pod("node-1", "Failed"), std::nullopt), 0);
  EXPECT_EQ(pod_deletion_grace_period(pod("node-1"), 0), 0) << "--grace-period=0";
  EXPECT_EQ(pod_deletion_grace_period(pod("node-1"), std::nullopt), 30);
}

TEST(GracefulPodDeletion, ABoundPodIsMarkedItsGracePeriodAhead) {
  auto [marked, verdict] = deleted(pod("node-1"), std::nullopt);
  EXPECT_TRUE(verdict.graceful);
  EXPECT_EQ(verdict.period, 30);
  EXPECT_EQ(marked.at("metadata").at("deletionGracePeriodSeconds"), 30);
  EXPECT_NEAR(deadline(marked), now() + 30, 2);

  auto [asked, asked_verdict] = deleted(pod("node-1"), 5);
  EXPECT_EQ(asked.at("metadata").at("deletionGracePeriodSeconds"), 5);
  EXPECT_NEAR(deadline(asked), now() + 5, 2);

  auto [negative, negative_verdict] = deleted(pod("node-1"), -3);
  EXPECT_EQ(negative.at("metadata").at("deletionGracePeriodSeconds"), 1) << "a negative period becomes 1";
}

TEST(GracefulPodDeletion, AZeroPeriodStillMarksThePodBeforeItGoes) {
  // kube's Store writes the mark, then deletes: watchers see MODIFIED, then DELETED.
  auto [marked, verdict] = deleted(pod(""), std::nullopt);
  EXPECT_TRUE(verdict.graceful);
  EXPECT_EQ(verdict.period, 0);
  EXPECT_EQ(marked.at("metadata").at("deletionGracePeriodSeconds"), 0);
}

TEST(GracefulPodDeletion, ALaterDeleteMayOnlyShortenThePeriod) {
  const json::object marked = deleted(pod("node-1"), std::nullopt).first;
  const std::int64_t first = deadline(marked);

  auto [same, pending] = deleted(marked, std::nullopt);
  EXPECT_TRUE(pending.pending);
  EXPECT_EQ(same, marked) << "a pending deletion is left as it is";
  EXPECT_TRUE(deleted(marked, 60).second.pending);

  auto [shorter, shortened] = deleted(marked, 10);
  EXPECT_TRUE(shortened.graceful);
  EXPECT_EQ(shorter.at("metadata").at("deletionGracePeriodSeconds"), 10);
  EXPECT_EQ(deadline(shorter), first - 20);

  auto [due, final_delete] = deleted(marked, 0);
  EXPECT_TRUE(final_delete.graceful) << "the kubelet's final delete marks the pod due, then it goes";
  EXPECT_EQ(final_delete.period, 0);
  auto [gone, verdict] = deleted(due, std::nullopt);
  EXPECT_FALSE(verdict.graceful || verdict.pending) << "a deletion already due is finished";
}

}  // namespace
}  // namespace kapi::apis::core::pod_deletion_test
