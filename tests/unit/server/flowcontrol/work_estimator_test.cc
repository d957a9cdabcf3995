#include "server/flowcontrol/work_estimator.h"

#include <gtest/gtest.h>

namespace kapi::flowcontrol::work_estimator_test {
namespace {

request::RequestInfo request(std::string verb, std::string resource = "configmaps") {
  request::RequestInfo info;
  info.is_resource_request = true;
  info.verb = std::move(verb);
  info.resource = std::move(resource);
  return info;
}

class WorkEstimatorTest : public ::testing::Test {
 protected:
  WorkEstimate estimate(const request::RequestInfo& info, std::string_view query, int max_seats = 100) {
    return estimator_.estimate(info, http::QueryParams::parse(query), max_seats);
  }

  ResourceCounts counts_{1000, 25};
  WorkEstimator estimator_{[this](std::string_view, std::string_view resource) -> std::optional<ResourceCounts> {
    if (resource == "widgets") return std::nullopt;
    return counts_;
  }};
};

TEST_F(WorkEstimatorTest, ListsTakeASeatPerHundredObjects) {
  EXPECT_EQ(estimate(request("list"), "").initial_seats, 10);
  counts_.objects = 250;
  EXPECT_EQ(estimate(request("list"), "").initial_seats, 3);
  EXPECT_EQ(estimate(request("list"), "resourceVersion=0").initial_seats, 3);
  counts_.objects = 0;
  EXPECT_EQ(estimate(request("list"), "").initial_seats, 1);
}

TEST_F(WorkEstimatorTest, PagesFromStorageCountWhatTheyRead) {
  EXPECT_EQ(estimate(request("list"), "limit=50&resourceVersion=123").initial_seats, 1);   // 2 x 50
  EXPECT_EQ(estimate(request("list"), "limit=300&resourceVersion=123").initial_seats, 6);  // 2 x 300
  auto selected = request("list");
  selected.label_selector = "app=web";
  EXPECT_EQ(estimate(selected, "limit=300&resourceVersionMatch=Exact&resourceVersion=5").initial_seats, 10);
}

TEST_F(WorkEstimatorTest, ANamedListIsOneObject) {
  auto named = request("list");
  named.name = "settings";
  EXPECT_EQ(estimate(named, "").initial_seats, 1);
}

TEST_F(WorkEstimatorTest, WatchesCostMoreOnlyWithInitialEvents) {
  EXPECT_EQ(estimate(request("watch"), "").initial_seats, 1);
  EXPECT_EQ(estimate(request("watch"), "sendInitialEvents=true&resourceVersionMatch=NotOlderThan").initial_seats, 10);
}

TEST_F(WorkEstimatorTest, SeatsAreBoundedByTheLevel) {
  EXPECT_EQ(estimate(request("list"), "", 4).initial_seats, 4);
  EXPECT_EQ(estimate(request("list"), "", 0).initial_seats, 10);
}

TEST_F(WorkEstimatorTest, UnknownResourcesAndOtherVerbsTakeOneSeat) {
  EXPECT_EQ(estimate(request("list", "widgets"), "").initial_seats, 1);
  EXPECT_EQ(estimate(request("get"), "").initial_seats, 1);
  request::RequestInfo version;
  version.verb = "get";
  version.path = "/version";
  EXPECT_EQ(estimate(version, "").initial_seats, 1);
}

TEST_F(WorkEstimatorTest, WritesToWatchedResourcesHoldSeatsForTheirEvents) {
  WorkEstimate write = estimate(request("create"), "");
  EXPECT_EQ(write.initial_seats, 1);
  EXPECT_EQ(write.final_seats, 3);  // 25 watchers, 10 per seat
  EXPECT_EQ(write.additional_latency, std::chrono::milliseconds(5));
  counts_.watchers = 5;
  write = estimate(request("update"), "");
  EXPECT_EQ(write.final_seats, 0);
  EXPECT_EQ(write.additional_latency, Clock::duration::zero());
  counts_.watchers = 1000;
  EXPECT_EQ(estimate(request("delete"), "").final_seats, 10);
}

}  // namespace
}  // namespace kapi::flowcontrol::work_estimator_test
