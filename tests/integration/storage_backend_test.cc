// The storage kapi runs on: the embedded store by default, etcd with --etcd-servers, and the "etcd" health
// check (kube-apiserver's name) that follows the backend's reachability.
#include "tests/integration/kapi_suite.h"
#include "tests/support/etcd_process.h"

#include <chrono>
#include <cstdio>
#include <thread>

namespace kapi::integration::storage_backend_test {
namespace {

using namespace std::chrono_literals;
using test_support::EtcdProcess;

// Polls `path` until it answers `status` or `bound` passes; the last status seen.
int wait_for_status(const KapiProcess& kapi, std::string_view path, int status, std::chrono::milliseconds bound) {
  auto deadline = std::chrono::steady_clock::now() + bound;
  int last = 0;
  while (true) {
    last = kapi.connect_admin().request("GET", path).status;
    if (last == status || std::chrono::steady_clock::now() >= deadline) return last;
    std::this_thread::sleep_for(100ms);
  }
}

TEST(StorageBackendTest, EmbeddedStoreIsTheDefaultAndItsCheckPasses) {
  KapiProcess kapi;
  auto response = kapi.connect_admin().request("GET", "/readyz/etcd");
  EXPECT_EQ(response.status, 200) << kapi.logs();
  EXPECT_EQ(response.body, "ok");
  // Ready means the system namespaces exist: the bootstrap post-start hook is one of /readyz's checks.
  auto verbose = kapi.connect_admin().request("GET", "/readyz?verbose");
  EXPECT_NE(verbose.body.find("[+]poststarthook/bootstrap-controller ok"), std::string::npos) << verbose.body;
  EXPECT_EQ(kapi.connect_admin().request("GET", "/api/v1/namespaces/default").status, 200);
  EXPECT_NE(kapi.stderr_text().find("embedded store in"), std::string::npos) << kapi.logs();
  EXPECT_TRUE(std::filesystem::exists(kapi.data_dir())) << kapi.logs();
  EXPECT_EQ(kapi.shut_down(20s), 0) << kapi.logs();
  EXPECT_EQ(kapi.sanitizer_reports(), "");
}

TEST(StorageBackendTest, EtcdServersSelectEtcdAndReadinessFollowsIt) {
  EtcdProcess etcd;
  KapiProcess kapi({.extra_flags = {"--etcd-servers=" + etcd.endpoint()}});
  EXPECT_NE(kapi.stderr_text().find("etcd at " + etcd.endpoint()), std::string::npos) << kapi.logs();
  EXPECT_EQ(kapi.connect_admin().request("GET", "/readyz/etcd").status, 200) << kapi.logs();

  etcd.kill();
  EXPECT_EQ(wait_for_status(kapi, "/readyz/etcd", 500, 15s), 500) << kapi.logs();
  auto verbose = kapi.connect_admin().request("GET", "/readyz?verbose");
  EXPECT_EQ(verbose.status, 500);
  EXPECT_NE(verbose.body.find("[-]etcd failed"), std::string::npos) << verbose.body;

  etcd.start();
  EXPECT_EQ(wait_for_status(kapi, "/readyz/etcd", 200, 20s), 200) << kapi.logs();
  EXPECT_EQ(kapi.shut_down(20s), 0) << kapi.logs();
  EXPECT_EQ(kapi.sanitizer_reports(), "");
}

// Objects land in etcd under --etcd-prefix with kube-apiserver's key layout, so etcdctl (and a kube-apiserver on
// the same etcd) reads what kapi wrote: by default in kube's protobuf form, and as JSON when asked.
TEST(StorageBackendTest, ObjectsAreStoredUnderTheEtcdPrefixAsKubeStoresThem) {
  EtcdProcess etcd;
  {
    KapiProcess kapi({.extra_flags = {"--etcd-servers=" + etcd.endpoint(), "--etcd-prefix=/kapi-default"}});
    auto created = kapi.connect_admin().request(
        "POST", "/api/v1/namespaces/default/configmaps", {{"Content-Type", "application/json"}},
        R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"stored"},"data":{"k":"v"}})");
    ASSERT_EQ(created.status, 201) << created.body << kapi.logs();
    const std::string stored = etcd.etcdctl("get /kapi-default/configmaps/default/stored --print-value-only");
    EXPECT_TRUE(stored.starts_with(std::string_view("k8s\0", 4))) << stored;
    EXPECT_NE(stored.find("ConfigMap"), std::string::npos) << stored;
  }
  KapiProcess kapi({.extra_flags = {"--etcd-servers=" + etcd.endpoint(), "--etcd-prefix=/kapi-test",
                                    "--storage-media-type=application/json"}});
  auto created = kapi.connect_admin().request(
      "POST", "/api/v1/namespaces/default/configmaps", {{"Content-Type", "application/json"}},
      R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"stored"},"data":{"k":"v"}})");
  ASSERT_EQ(created.status, 201) << created.body << kapi.logs();

  const std::string stored = etcd.etcdctl("get /kapi-test/configmaps/default/stored --print-value-only");
  EXPECT_TRUE(stored.starts_with(R"({"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"stored")")) << stored;
  EXPECT_EQ(stored.find("resourceVersion"), std::string::npos) << stored;  // kube never stores it
  EXPECT_NE(stored.find(R"("data":{"k":"v"})"), std::string::npos) << stored;
  // The system namespaces exist in etcd too.
  EXPECT_EQ(kapi.connect_admin().request("GET", "/api/v1/namespaces/kube-system").status, 200);
  EXPECT_EQ(kapi.shut_down(20s), 0) << kapi.logs();
  EXPECT_EQ(kapi.sanitizer_reports(), "");
}

TEST(StorageBackendTest, UnreachableEtcdKeepsKapiUnready) {
  const int port = test_support::pick_free_port();
  KapiOptions options{.extra_flags = {"--etcd-servers=http://127.0.0.1:" + std::to_string(port)},
                      .startup_timeout = 3s};
  EXPECT_THROW(KapiProcess{options}, std::runtime_error);
}

}  // namespace
}  // namespace kapi::integration::storage_backend_test
