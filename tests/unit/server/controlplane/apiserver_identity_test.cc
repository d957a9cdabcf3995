// The identity Lease as kube-apiserver names, writes and expires it (k8s.io/apiserver server/config.go,
// component-helpers' lease controller, apiserverleasegc).
#include "server/controlplane/apiserver_identity.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace kapi::controlplane::apiserver_identity_test {
namespace {

namespace json = boost::json;
using std::chrono::seconds;

// The names kube computes (its integration test's expectedAPIServerIdentity, worked out for these hostnames).
TEST(ApiServerIdentityTest, NamesTheLeaseAfterTheHostnameAsKubeDoes) {
  EXPECT_EQ(apiserver_identity("host-1"), "apiserver-fl6obw4ijfryx25ur4ugqryswq");
  EXPECT_EQ(apiserver_identity("vm"), "apiserver-wlv32tlttr4jl3gtroqexyxapa");
  EXPECT_EQ(apiserver_identity(""), "apiserver-2ikcnb3wory4bpirwz777r2iv4");
}

TEST(ApiServerIdentityTest, TheLeaseKeepsOtherLabelsAndRenewsItsSpec) {
  const IdentityLeaseTiming timing;
  const json::object created = identity_lease(nullptr, "apiserver-x", "vm", "apiserver-x_1", "2026-12-03T10:00:00.000000Z", timing);
  EXPECT_EQ(json::serialize(created),
            R"({"metadata":{"name":"apiserver-x","namespace":"kube-system","labels":{"apiserver.kubernetes.io/identity":"kube-apiserver","kubernetes.io/hostname":"vm"}},)"
            R"("spec":{"holderIdentity":"apiserver-x_1","leaseDurationSeconds":3600,"renewTime":"2026-12-03T10:00:00.000000Z"}})");
  json::object stored = created;
  stored["metadata"].as_object()["labels"].as_object()["team"] = "a";
  stored["metadata"].as_object()["resourceVersion"] = "7";
  const json::object renewed = identity_lease(&stored, "apiserver-x", "vm", "apiserver-x_2", "2026-12-03T10:00:10.000000Z", timing);
  EXPECT_EQ(renewed.at("metadata").at("labels").at("team"), "a");
  EXPECT_EQ(renewed.at("metadata").at("resourceVersion"), "7");
  EXPECT_EQ(renewed.at("spec").at("holderIdentity"), "apiserver-x_2");
  EXPECT_EQ(renewed.at("spec").at("renewTime"), "2026-12-03T10:00:10.000000Z");
}

// isLeaseExpired: renewTime + leaseDurationSeconds before now, or either missing.
TEST(ApiServerIdentityTest, ALeaseExpiresItsDurationAfterItsLastRenewal) {
  const auto renewed = std::chrono::system_clock::time_point(seconds(1'800'000'000));  // 2027-01-15T08:00:00Z
  const json::object lease =
      json::parse(R"({"spec":{"renewTime":"2027-01-15T08:00:00.000000Z","leaseDurationSeconds":3600}})").as_object();
  EXPECT_FALSE(identity_lease_expired(lease, renewed + seconds(3600)));
  EXPECT_TRUE(identity_lease_expired(lease, renewed + seconds(3601)));
  EXPECT_TRUE(identity_lease_expired(json::parse(R"({"spec":{"leaseDurationSeconds":3600}})").as_object(), renewed));
  EXPECT_TRUE(identity_lease_expired(json::parse(R"({"spec":{"renewTime":"2027-01-15T08:00:00.000000Z"}})").as_object(), renewed));
}

}  // namespace
}  // namespace kapi::controlplane::apiserver_identity_test
