#pragma once
// What the certificate admission plugins' tests share: CSRs (a kubelet client request, O=system:nodes, and one
// asking for system:masters), a certificate, all ECDSA P-256 made once with the openssl CLI, and an authorizer
// that allows one verb on one signer.
#include "base/base64.h"
#include "server/authorization/authorizer.h"
#include "tests/unit/server/admission/resource_plugin_fixture.h"

#include <boost/json.hpp>

#include <string>
#include <string_view>

namespace kapi::admission::testing {

inline constexpr std::string_view kKubeletCsr = R"(-----BEGIN CERTIFICATE REQUEST-----
MIHwMIGYAgEAMDYxFTATBgNVBAoMDHN5c3RlbTpub2RlczEdMBsGA1UEAwwUc3lz
dGVtOm5vZGU6d29ya2VyLTEwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAATZyFys
WgEXrF96qAhAbdJoP5SKnCAEphoZRbdSyBBeMbuoSEFyew38s8tgWnB5+jQwQNB3
HyjY2OHHeyg8ORp/oAAwCgYIKoZIzj0EAwIDRwAwRAIgOwhBtyYH0Ojel5cDJRt4
jF5Ai3fxs8c/gSRIz82v6EQCIA4i66w6/71322/mzvfypePeDbY6urwwbwEEcNDH
4Jgy
-----END CERTIFICATE REQUEST-----
)";
inline constexpr std::string_view kMastersCsr = R"(-----BEGIN CERTIFICATE REQUEST-----
MIHkMIGLAgEAMCkxFzAVBgNVBAoMDnN5c3RlbTptYXN0ZXJzMQ4wDAYDVQQDDAVh
ZG1pbjBZMBMGByqGSM49AgEGCCqGSM49AwEHA0IABL0u4NUTNana7yNQZKQM8+h8
S+5tIekgPF235eP7FF9a4zn02kza9KFH30wQBqD8z4kT8GU+OmVC345nrRWz/VCg
ADAKBggqhkjOPQQDAgNIADBFAiAbaAq5Nt1cqV845IsY0c26zY70zE9nyqTx98Kb
qO6+6AIhALbPSskpqez6BkmezYUBrHpmxiZChoibE6x0bo+og0ut
-----END CERTIFICATE REQUEST-----
)";
inline constexpr std::string_view kCertificate = R"(-----BEGIN CERTIFICATE-----
MIIBdjCCAR2gAwIBAgIUMoXq77kkBPH2F7DstDx4YvubvjowCgYIKoZIzj0EAwIw
ETEPMA0GA1UEAwwGaXNzdWVkMB4XDTI2MTIwMTE4MTU0MFoXDTI2MTIwMjE4MTU0
MFowETEPMA0GA1UEAwwGaXNzdWVkMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE
xCPETyrMOFwAGJoGq88AS3uHCYV+hD73fZHUBbRY9VUjvn2QoqZhdETSAv94FIY5
AhGqpplyVKFeWuM6wbRapqNTMFEwHQYDVR0OBBYEFITHWcZ4XdC4o7IDSqqS0E9Q
6/JeMB8GA1UdIwQYMBaAFITHWcZ4XdC4o7IDSqqS0E9Q6/JeMA8GA1UdEwEB/wQF
MAMBAf8wCgYIKoZIzj0EAwIDRwAwRAIgUK7U0kzFHf0ITQivThRsE8sOyoShxKoO
qmpG7aLWiFwCIE0Dejfwu+XedMO94xHX8daOXRK0NAi+D8VBcL2rzqkp
-----END CERTIFICATE-----
)";

inline boost::json::object csr(std::string_view pem,
                               std::string_view signer = "kubernetes.io/kube-apiserver-client-kubelet") {
  return {{"metadata", boost::json::object{{"name", "node-csr"}}},
          {"spec", boost::json::object{{"request", base::base64_encode(pem)}, {"signerName", signer},
                                       {"usages", boost::json::array{"digital signature", "client auth"}}}},
          {"status", boost::json::object()}};
}

// Allows `verb` on the signer it names (maybe a domain wildcard, "kubernetes.io/*"), nothing else.
class SignersAuthorizer final : public authorization::Authorizer {
 public:
  SignersAuthorizer(std::string verb, std::string signer) : verb_(std::move(verb)), signer_(std::move(signer)) {}
  authorization::Result authorize(const authorization::Attributes& attributes) const override {
    const bool allowed = attributes.api_group == "certificates.k8s.io" && attributes.api_version == "*" &&
                         attributes.resource == "signers" && attributes.resource_request &&
                         attributes.verb == verb_ && attributes.name == signer_;
    return {.decision = allowed ? authorization::Decision::Allow : authorization::Decision::NoOpinion};
  }

 private:
  std::string verb_, signer_;
};

// A write by jane (group devs) of a CSR's subresource (/approval, /status), as the certificate plugins see it.
class CsrWriteFixture : public PluginFixture {
 protected:
  Attributes csr_write(std::string subresource, boost::json::object& csr, const boost::json::object& old) {
    Attributes attributes = this->attributes(Operation::Update, "certificates.k8s.io", "certificatesigningrequests",
                                             "CertificateSigningRequest", "", &csr, &old);
    attributes.subresource = std::move(subresource);
    attributes.user = &jane_;
    return attributes;
  }
  const request::UserInfo jane_{"jane", "", {"devs"}, {}};
};

}  // namespace kapi::admission::testing
