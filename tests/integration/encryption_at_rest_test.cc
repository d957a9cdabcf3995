// Encryption at rest on etcd, as kube documents its use: a server started with --encryption-provider-config
// encrypts the secrets it writes with the first provider and reads every provider's; `kubectl get secrets -o json
// | kubectl replace -f -` rewrites older secrets with the first provider (an unchanged object whose stored value is
// stale is written again); rotating to a new key, then to identity, takes the same two steps. What etcd holds is
// read with etcdctl: kube's "k8s:enc:<provider>:v1:<key>:" prefixes, or the plain object.
#include "tests/integration/kapi_suite.h"
#include "tests/integration/kubectl_runner.h"

#include "tests/support/etcd_process.h"
#include "tests/support/temp_dir.h"

#include <fstream>
#include <optional>

namespace kapi::integration::encryption_at_rest_test {
namespace {

using Headers = std::vector<std::pair<std::string, std::string>>;

constexpr std::string_view kAesCbcThenIdentity = R"(apiVersion: apiserver.config.k8s.io/v1
kind: EncryptionConfiguration
resources:
  - resources: [secrets]
    providers:
      - aescbc:
          keys:
            - name: key1
              secret: c2l4dGVlbi1ieXRlLWtleQ==
      - identity: {}
)";

constexpr std::string_view kRotatedToAesGcm = R"(apiVersion: apiserver.config.k8s.io/v1
kind: EncryptionConfiguration
resources:
  - resources: [secrets]
    providers:
      - aesgcm:
          keys:
            - name: key2
              secret: dGhpcy1pcy1hLTMyLWJ5dGUta2V5LWZvci10ZXN0cyE=
      - aescbc:
          keys:
            - name: key1
              secret: c2l4dGVlbi1ieXRlLWtleQ==
)";

constexpr std::string_view kDecrypting = R"(apiVersion: apiserver.config.k8s.io/v1
kind: EncryptionConfiguration
resources:
  - resources: [secrets]
    providers:
      - identity: {}
      - aesgcm:
          keys:
            - name: key2
              secret: dGhpcy1pcy1hLTMyLWJ5dGUta2V5LWZvci10ZXN0cyE=
)";

class EncryptionAtRestTest : public ::testing::Test {
 protected:
  // (Re)starts the server on the same etcd and PKI with `config` (none: no encryption).
  void start(std::string_view config) {
    kapi_.reset();
    // JSON storage, so that a value etcd holds unencrypted is recognisably plain ("{").
    KapiOptions options{.extra_flags = {"--etcd-servers=" + etcd_.endpoint(), "--storage-media-type=application/json"},
                        .data_dir = dir_.path() / "data"};
    if (!config.empty()) {
      const auto file = dir_.path() / ("encryption-" + std::to_string(++configs_) + ".yaml");
      std::ofstream(file) << config;
      options.extra_flags.push_back("--encryption-provider-config=" + file.string());
    }
    kapi_.emplace(options);
  }

  void create_secret(const std::string& name) {
    const std::string body = R"({"apiVersion":"v1","kind":"Secret","metadata":{"name":")" + name +
                             R"("},"stringData":{"password":"s3cr3t-)" + name + R"("}})";
    const HttpResponse created = kapi_->connect_admin().request(
        "POST", "/api/v1/namespaces/default/secrets", Headers{{"Content-Type", "application/json"}}, body);
    ASSERT_EQ(created.status, 201) << created.body;
  }

  // What etcd holds for the secret: its first bytes, enough for kube's prefix.
  std::string stored(const std::string& name) {
    return etcd_.etcdctl("get /registry/secrets/default/" + name + " --print-value-only").substr(0, 24);
  }

  // The secret as the API serves it: its password, decoded.
  std::string password(const std::string& name) {
    const HttpResponse got = kapi_->connect_admin().request("GET", "/api/v1/namespaces/default/secrets/" + name);
    if (got.status != 200) return "status " + std::to_string(got.status) + ": " + got.body;
    return std::string(json_object(got.body).at("data").at("password").as_string());
  }

  void replace_all() {
    const std::string replace = "env HOME=" + (kapi_->work_dir() / "kubectl-home").string() +
                                " /usr/bin/kubectl --kubeconfig '" + kapi_->admin_kubeconfig().string() + "' replace -f -";
    const CommandResult replaced = run_kubectl(*kapi_, "get secrets -n default -o json | " + replace);
    ASSERT_EQ(replaced.exit_code, 0) << replaced.output;
  }

  test_support::EtcdProcess etcd_;
  test_support::TempDir dir_{"kapi-encryption"};
  std::optional<KapiProcess> kapi_;
  int configs_ = 0;
};

TEST_F(EncryptionAtRestTest, SecretsAreEncryptedRotatedAndDecryptedAsKubeDocuments) {
  start("");
  create_secret("old");
  EXPECT_TRUE(stored("old").starts_with("{")) << stored("old");

  // Encryption on: new secrets are encrypted, the old one is read as it is until it is rewritten.
  start(kAesCbcThenIdentity);
  create_secret("new");
  EXPECT_TRUE(stored("new").starts_with("k8s:enc:aescbc:v1:key1:")) << stored("new");
  EXPECT_TRUE(stored("old").starts_with("{"));
  EXPECT_EQ(password("old"), "czNjcjN0LW9sZA==");  // "s3cr3t-old"
  EXPECT_EQ(password("new"), "czNjcjN0LW5ldw==");
  replace_all();
  EXPECT_TRUE(stored("old").starts_with("k8s:enc:aescbc:v1:key1:")) << stored("old");

  // A new key first, the old one kept for reading: replace moves every secret to the new key.
  start(kRotatedToAesGcm);
  EXPECT_EQ(password("old"), "czNjcjN0LW9sZA==");
  replace_all();
  EXPECT_TRUE(stored("old").starts_with("k8s:enc:aesgcm:v1:key2:")) << stored("old");
  EXPECT_TRUE(stored("new").starts_with("k8s:enc:aesgcm:v1:key2:")) << stored("new");

  // Identity first: replace decrypts everything, after which encryption can be switched off.
  start(kDecrypting);
  replace_all();
  EXPECT_TRUE(stored("old").starts_with("{")) << stored("old");
  EXPECT_TRUE(stored("new").starts_with("{")) << stored("new");
  start("");
  EXPECT_EQ(password("new"), "czNjcjN0LW5ldw==");
}

TEST_F(EncryptionAtRestTest, AConfigurationKubeRefusesStopsTheServer) {
  const auto file = dir_.path() / "short-key.yaml";
  std::ofstream(file) << "apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n"
                         "- resources: [secrets]\n  providers:\n  - aescbc:\n      keys:\n      - name: k\n"
                         "        secret: cGFzc3dvcmQ=\n";
  const CommandResult refused = test_support::run_command(
      "timeout 20 " + std::string(std::getenv("KAPI_BINARY")) + " --data-dir=" + (dir_.path() / "refused").string() +
      " --secure-port=0 --encryption-provider-config=" + file.string());
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_NE(refused.output.find("resources[0].providers[0].aescbc.keys[0].secret: Invalid value: \"REDACTED\": secret "
                                "is not of the expected length, got 8, expected one of [16 24 32]"),
            std::string::npos)
      << refused.output;
}

}  // namespace
}  // namespace kapi::integration::encryption_at_rest_test
