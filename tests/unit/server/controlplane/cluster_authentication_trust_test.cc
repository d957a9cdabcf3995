// The extension-apiserver-authentication ConfigMap's data as kube's clusterauthenticationtrust controller writes
// it: the lists as JSON, the requestheader-* keys only with a request-header CA, and what other servers of the
// cluster wrote kept (lists joined, CA bundles joined without duplicates).
#include "server/controlplane/cluster_authentication_trust.h"
#include "server/pki/pem_io.h"
#include "server/pki/x509_builder.h"

#include <gtest/gtest.h>

namespace kapi::controlplane::cluster_authentication_trust_test {
namespace {

namespace json = boost::json;

std::string ca_pem(const std::string& name) {
  auto key = pki::generate_ecdsa_p256_key();
  return pki::certificate_to_pem(
      pki::self_sign_certificate_authority({name, {}, pki::CertificateUsage::certificate_authority}, key.get()).get());
}

TEST(AuthenticationConfigMap, WritesKubesKeys) {
  ClusterAuthenticationInfo ours{ca_pem("client-ca"), ca_pem("front-proxy-ca"), {"X-Remote-User"}, {},
                                 {"X-Remote-Group"}, {"X-Remote-Extra-"}, {"front-proxy-client"}};
  json::object data = authentication_configmap_data(ours, nullptr);
  EXPECT_EQ(data, (json::object{{"client-ca-file", ours.client_ca},
                                {"requestheader-client-ca-file", ours.request_header_ca},
                                {"requestheader-username-headers", "[\"X-Remote-User\"]"},
                                {"requestheader-uid-headers", "[]"},
                                {"requestheader-group-headers", "[\"X-Remote-Group\"]"},
                                {"requestheader-extra-headers-prefix", "[\"X-Remote-Extra-\"]"},
                                {"requestheader-allowed-names", "[\"front-proxy-client\"]"}}));
  EXPECT_EQ(authentication_configmap_data(ours, &data), data) << "writing it again changes nothing";
}

TEST(AuthenticationConfigMap, WithoutARequestHeaderCaOnlyTheClientCa) {
  ClusterAuthenticationInfo ours;
  ours.client_ca = ca_pem("client-ca");
  ours.request_header_username_headers = {"X-Remote-User"};
  EXPECT_EQ(authentication_configmap_data(ours, nullptr), (json::object{{"client-ca-file", ours.client_ca}}));
}

TEST(AuthenticationConfigMap, KeepsWhatOtherServersWrote) {
  const std::string other_client_ca = ca_pem("other-client-ca");
  const std::string front_proxy_ca = ca_pem("front-proxy-ca");
  json::object existing{{"client-ca-file", other_client_ca},
                        {"requestheader-client-ca-file", front_proxy_ca},
                        {"requestheader-username-headers", "[\"X-Proxy-User\",\"X-Remote-User\"]"},
                        {"requestheader-allowed-names", "null"}};
  ClusterAuthenticationInfo ours{ca_pem("client-ca"), front_proxy_ca, {"X-Remote-User"}, {"X-Remote-Uid"}, {}, {}, {}};
  json::object data = authentication_configmap_data(ours, &existing);
  EXPECT_EQ(data["client-ca-file"], json::value(other_client_ca + ours.client_ca));
  EXPECT_EQ(data["requestheader-client-ca-file"], json::value(front_proxy_ca)) << "the same CA once";
  EXPECT_EQ(data["requestheader-username-headers"], "[\"X-Proxy-User\",\"X-Remote-User\"]");
  EXPECT_EQ(data["requestheader-uid-headers"], "[\"X-Remote-Uid\"]");
  EXPECT_EQ(data["requestheader-allowed-names"], "[]");

  json::object broken{{"requestheader-group-headers", "X-Remote-Group"}};
  EXPECT_THROW(authentication_configmap_data(ours, &broken), std::runtime_error) << "kube fails the sync";
}

}  // namespace
}  // namespace kapi::controlplane::cluster_authentication_trust_test
