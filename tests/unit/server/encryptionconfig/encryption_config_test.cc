// --encryption-provider-config: kube's EncryptionConfiguration files, the transformers they give each resource,
// and the errors kube-apiserver refuses to start with.
#include "server/encryptionconfig/encryption_config.h"

#include <gtest/gtest.h>

namespace kapi::encryptionconfig::encryption_config_test {
namespace {

constexpr std::string_view kPlain = R"({"kind":"Secret"})";

// 32 bytes: "this-is-a-32-byte-key-for-tests!"; 16 bytes: "sixteen-byte-key".
constexpr std::string_view kConfig = R"(apiVersion: apiserver.config.k8s.io/v1
kind: EncryptionConfiguration
resources:
  - resources:
      - secrets
      - configmaps
    providers:
      - aesgcm:
          keys:
            - name: key2
              secret: dGhpcy1pcy1hLTMyLWJ5dGUta2V5LWZvci10ZXN0cyE=
      - aescbc:
          keys:
            - name: key1
              secret: c2l4dGVlbi1ieXRlLWtleQ==
      - identity: {}
  - resources:
      - "*.apps"
    providers:
      - secretbox:
          keys:
            - name: box
              secret: dGhpcy1pcy1hLTMyLWJ5dGUta2V5LWZvci10ZXN0cyE=
)";

std::string error_of(std::string_view text) {
  try {
    parse_encryption_config(text, "/etc/kapi/enc.yaml");
  } catch (const ConfigError& error) {
    return error.what();
  }
  return "no error";
}

TEST(EncryptionConfigTest, EachResourceGetsItsEntrysProvidersInOrder) {
  const auto transformers = parse_encryption_config(kConfig, "enc.yaml");
  const auto secrets = transformers("", "secrets");
  ASSERT_TRUE(secrets);
  const std::string stored = secrets->to_storage(kPlain, "/registry/secrets/a/b");
  EXPECT_TRUE(stored.starts_with("k8s:enc:aesgcm:v1:key2:")) << stored.substr(0, 24);
  EXPECT_EQ(secrets->from_storage(stored, "/registry/secrets/a/b").value, kPlain);
  const auto read_plain = secrets->from_storage(kPlain, "/registry/secrets/a/b");
  EXPECT_TRUE(read_plain.stale) << "identity is last: an unencrypted secret is rewritten encrypted";

  EXPECT_TRUE(transformers("", "configmaps"));
  EXPECT_FALSE(transformers("", "pods")) << "a resource no entry names is stored as it is";
  const auto deployments = transformers("apps", "deployments");
  ASSERT_TRUE(deployments) << "*.apps";
  EXPECT_TRUE(deployments->to_storage(kPlain, "k").starts_with("k8s:enc:secretbox:v1:box:"));
  EXPECT_FALSE(transformers("batch", "jobs"));
}

TEST(EncryptionConfigTest, WildcardsCoverAGroupAndEverything) {
  const auto transformers = parse_encryption_config(R"({"apiVersion":"apiserver.config.k8s.io/v1",
    "kind":"EncryptionConfiguration","resources":[
      {"resources":["*."],"providers":[{"aescbc":{"keys":[{"name":"core","secret":"c2l4dGVlbi1ieXRlLWtleQ=="}]}}]},
      {"resources":["*.*"],"providers":[{"identity":{}}]}]})",
                                                    "enc.json");
  EXPECT_TRUE(transformers("", "secrets")->to_storage(kPlain, "k").starts_with("k8s:enc:aescbc:v1:core:"));
  EXPECT_EQ(transformers("stable.example.com", "crontabs")->to_storage(kPlain, "k"), kPlain);
}

TEST(EncryptionConfigTest, RefusesWhatKubeRefuses) {
  const std::string header = "apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\n";
  EXPECT_EQ(error_of(" \n"), "encryption provider configuration file \"/etc/kapi/enc.yaml\" is empty");
  EXPECT_EQ(error_of("apiVersion: v1\nkind: ConfigMap\n"),
            "error decoding encryption provider configuration file \"/etc/kapi/enc.yaml\": no kind \"ConfigMap\" is "
            "registered for version \"v1\"");
  EXPECT_EQ(error_of(header + "resources:\n- resources: [secrets]\n  providers:\n  - aescbc:\n      keys:\n"
                              "      - name: k\n        secret: cGFzc3dvcmQ=\n"),
            "error while parsing encryption provider configuration file \"/etc/kapi/enc.yaml\": error while parsing "
            "file: resources[0].providers[0].aescbc.keys[0].secret: Invalid value: \"REDACTED\": secret is not of "
            "the expected length, got 8, expected one of [16 24 32]");
  EXPECT_EQ(error_of(header + "resources:\n- resources: [secrets]\n  providers:\n  - secretbox:\n      keys:\n"
                              "      - name: k\n        secret: c2l4dGVlbi1ieXRlLWtleQ==\n"),
            "error while parsing encryption provider configuration file \"/etc/kapi/enc.yaml\": error while parsing "
            "file: resources[0].providers[0].secretbox.keys[0].secret: Invalid value: \"REDACTED\": secret is not of "
            "the expected length, got 16, expected one of [32]");
  EXPECT_EQ(error_of(header + "resources:\n- resources: [secrets]\n  providers:\n  - aesgcm:\n      keys:\n"
                              "      - name: k\n        secret: '!!!'\n"),
            "error while parsing encryption provider configuration file \"/etc/kapi/enc.yaml\": error while parsing "
            "file: resources[0].providers[0].aesgcm.keys[0].secret: Invalid value: \"REDACTED\": secrets must be "
            "base64 encoded");
  EXPECT_EQ(error_of(header + "resources:\n- resources: [secrets]\n  providers:\n  - aesgcm:\n      keys: []\n"),
            "error while parsing encryption provider configuration file \"/etc/kapi/enc.yaml\": error while parsing "
            "file: resources[0].providers[0].aesgcm.keys: Required value: at least one keys is required");
  EXPECT_EQ(error_of(header + "resources:\n- resources: [secrets]\n  providers: []\n"),
            "error while parsing encryption provider configuration file \"/etc/kapi/enc.yaml\": error while parsing "
            "file: resources[0].providers: Required value: at least one resources[0].providers is required");
  EXPECT_EQ(error_of(header + "resources:\n- resources: [secrets]\n  providers:\n  - identity: {}\n    aescbc: {}\n"),
            "error while parsing encryption provider configuration file \"/etc/kapi/enc.yaml\": error while parsing "
            "file: resources[0].providers[0]: Invalid value: config.ProviderConfiguration{...}: more than one "
            "provider specified in a single element, should split into different list elements");
  EXPECT_EQ(error_of(header + "resources:\n- resources: ['*.*']\n  providers: [{identity: {}}]\n"
                              "- resources: [secrets]\n  providers: [{identity: {}}]\n"),
            "error while parsing encryption provider configuration file \"/etc/kapi/enc.yaml\": resource \"secrets\" "
            "is masked by earlier rule \"*.*\"");
  EXPECT_NE(error_of(header + "resources:\n- resources: [secrets]\n  providers:\n  - kms:\n      name: k\n"),
            "no error");
}

}  // namespace
}  // namespace kapi::encryptionconfig::encryption_config_test
