// Each kapi server keeps an identity Lease in kube-system as kube-apiserver does (the APIServerIdentity feature,
// kube's test/integration/controlplane/apiserver_identity_test.go): named after its hostname, labelled, renewed by
// a new holder after a restart; and at start a server deletes the identity Leases of kube-system that expired,
// leaving fresh ones, unlabelled ones and those of other namespaces.
#include "tests/integration/kapi_suite.h"

#include "base/go_time.h"
#include "base/host_address.h"
#include "server/controlplane/apiserver_identity.h"

#include <chrono>
#include <functional>
#include <tuple>
#include <thread>

namespace kapi::integration::apiserver_identity_test {
namespace {

using namespace std::chrono_literals;
namespace json = boost::json;
using Headers = std::vector<std::pair<std::string, std::string>>;

const Headers kJson{{"Content-Type", "application/json"}};

std::string leases_path(std::string_view namespace_) {
  return "/apis/coordination.k8s.io/v1/namespaces/" + std::string(namespace_) + "/leases";
}

std::string micro_time(std::chrono::system_clock::time_point time) {
  return base::format_rfc3339_micro(base::unix_time(time));
}

// An identity Lease renewed at `renewed` (kube's newTestLease), with or without the identity label.
std::string test_lease(std::string_view name, std::chrono::system_clock::time_point renewed, bool labelled) {
  json::object metadata{{"name", name}};
  if (labelled) metadata["labels"] = json::object{{"apiserver.kubernetes.io/identity", "kube-apiserver"}};
  json::object lease{{"apiVersion", "coordination.k8s.io/v1"}, {"kind", "Lease"}, {"metadata", metadata},
                     {"spec", json::object{{"holderIdentity", name}, {"leaseDurationSeconds", 3600},
                                           {"acquireTime", micro_time(renewed)}, {"renewTime", micro_time(renewed)}}}};
  return json::serialize(lease);
}

TEST(ApiServerIdentityLeaseTest, EachServerKeepsItsLeaseAndCollectsExpiredOnes) {
  test_support::TempDir data("kapi-identity-lease");
  const KapiOptions options{.data_dir = data.path() / "data"};
  const std::string name = controlplane::apiserver_identity(base::hostname());
  const std::string identity_leases =
      leases_path("kube-system") + "?labelSelector=apiserver.kubernetes.io%2Fidentity%3Dkube-apiserver";
  std::string first_holder;
  const auto now = std::chrono::system_clock::now();
  {
    KapiProcess kapi(options);
    json::object lease;
    ASSERT_TRUE(eventually([&] {
      HttpResponse listed = kapi.connect_admin().request("GET", identity_leases);
      const json::array items = json_object(listed.body)["items"].as_array();
      if (items.size() != 1) return false;
      lease = items[0].as_object();
      return true;
    })) << kapi.logs();
    EXPECT_EQ(lease["metadata"].at("name").as_string(), name);
    EXPECT_EQ(lease["metadata"].at("labels").at("kubernetes.io/hostname").as_string(), base::hostname());
    EXPECT_EQ(lease["spec"].at("leaseDurationSeconds"), 3600);
    first_holder = std::string(lease["spec"].at("holderIdentity").as_string());
    EXPECT_TRUE(first_holder.starts_with(name + "_")) << first_holder;
    EXPECT_TRUE(lease["spec"].as_object().contains("renewTime"));

    const std::vector<std::tuple<std::string, std::string, std::string>> created = {
        {"kube-system", "apiserver-expired", test_lease("apiserver-expired", now - 2h, true)},
        {"kube-system", "apiserver-fresh", test_lease("apiserver-fresh", now - 2min, true)},
        {"kube-system", "expired-unlabelled", test_lease("expired-unlabelled", now - 2h, false)},
        {"default", "apiserver-expired", test_lease("apiserver-expired", now - 2h, true)}};
    for (const auto& [namespace_, lease_name, body] : created) {
      HttpResponse response = kapi.connect_admin().request("POST", leases_path(namespace_), kJson, body);
      ASSERT_EQ(response.status, 201) << lease_name << ": " << response.body;
    }
    ASSERT_EQ(kapi.shut_down(20s), 0) << kapi.logs();
  }

  KapiProcess kapi(options);
  auto status_of = [&kapi](std::string_view namespace_, std::string_view lease_name) {
    return kapi.connect_admin().request("GET", leases_path(namespace_) + "/" + std::string(lease_name)).status;
  };
  EXPECT_TRUE(eventually([&] { return status_of("kube-system", "apiserver-expired") == 404; })) << kapi.logs();
  EXPECT_EQ(status_of("kube-system", "apiserver-fresh"), 200);
  EXPECT_EQ(status_of("kube-system", "expired-unlabelled"), 200);
  EXPECT_EQ(status_of("default", "apiserver-expired"), 200);
  // The restarted server renews its own Lease under a holder of its own.
  EXPECT_TRUE(eventually([&] {
    HttpResponse own = kapi.connect_admin().request("GET", leases_path("kube-system") + "/" + name);
    return own.status == 200 && json_object(own.body)["spec"].at("holderIdentity").as_string() != first_holder;
  })) << kapi.logs();
}

}  // namespace
}  // namespace kapi::integration::apiserver_identity_test
