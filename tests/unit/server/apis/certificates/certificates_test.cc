// CertificateSigningRequests as kube's registry keeps them: pkg/apis/certificates/validation word for word (the
// request's PEM and signature, signerName, usages, expirationSeconds, conditions, the certificate, and what each
// of the main resource, /status and /approval may change), the strategy's requestor and subresource rules and the
// printer's cells. Who may approve, sign and ask for system:masters, the certificate admission plugins decide
// (tests/unit/server/admission).
#include "base/base64.h"
#include "server/apierrors/errors.h"
#include "server/apis/certificates/certificates.h"
#include "server/apis/certificates/csr_validation.h"
#include "tests/unit/server/apis/strategy_testing.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace kapi::apis::certificates_test {
namespace {

namespace json = boost::json;
using certificates::CsrWrite;

// The fixtures: a kubelet client CSR (O=system:nodes, CN=system:node:worker-1), one asking for system:masters,
// and a self-signed certificate, all ECDSA P-256, made once with the openssl CLI.
constexpr std::string_view kKubeletCsr = R"(-----BEGIN CERTIFICATE REQUEST-----
MIHwMIGYAgEAMDYxFTATBgNVBAoMDHN5c3RlbTpub2RlczEdMBsGA1UEAwwUc3lz
dGVtOm5vZGU6d29ya2VyLTEwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAATZyFys
WgEXrF96qAhAbdJoP5SKnCAEphoZRbdSyBBeMbuoSEFyew38s8tgWnB5+jQwQNB3
HyjY2OHHeyg8ORp/oAAwCgYIKoZIzj0EAwIDRwAwRAIgOwhBtyYH0Ojel5cDJRt4
jF5Ai3fxs8c/gSRIz82v6EQCIA4i66w6/71322/mzvfypePeDbY6urwwbwEEcNDH
4Jgy
-----END CERTIFICATE REQUEST-----
)";
constexpr std::string_view kMastersCsr = R"(-----BEGIN CERTIFICATE REQUEST-----
MIHkMIGLAgEAMCkxFzAVBgNVBAoMDnN5c3RlbTptYXN0ZXJzMQ4wDAYDVQQDDAVh
ZG1pbjBZMBMGByqGSM49AgEGCCqGSM49AwEHA0IABL0u4NUTNana7yNQZKQM8+h8
S+5tIekgPF235eP7FF9a4zn02kza9KFH30wQBqD8z4kT8GU+OmVC345nrRWz/VCg
ADAKBggqhkjOPQQDAgNIADBFAiAbaAq5Nt1cqV845IsY0c26zY70zE9nyqTx98Kb
qO6+6AIhALbPSskpqez6BkmezYUBrHpmxiZChoibE6x0bo+og0ut
-----END CERTIFICATE REQUEST-----
)";
constexpr std::string_view kCertificate = R"(-----BEGIN CERTIFICATE-----
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

using strategy_testing::messages;

json::object csr(std::string_view pem, std::string_view signer = "kubernetes.io/kube-apiserver-client-kubelet",
                 json::array usages = {"digital signature", "client auth"}) {
  return {{"metadata", json::object{{"name", "node-csr"}}},
          {"spec", json::object{{"request", base::base64_encode(pem)}, {"signerName", signer}, {"usages", usages}}},
          {"status", json::object()}};
}

json::object with_conditions(json::object object, json::array conditions) {
  object["status"].as_object()["conditions"] = std::move(conditions);
  return object;
}

json::object condition(std::string_view type, std::string_view status = "True") {
  return {{"type", type}, {"status", status}, {"reason", "Test"}};
}

TEST(CertificateSigningRequestsTest, ServedAsKube) {
  ResourceStorage storage = certificatesigningrequests();
  EXPECT_EQ(storage.definition.group_version(), "certificates.k8s.io/v1");
  EXPECT_EQ(storage.definition.kind, "CertificateSigningRequest");
  EXPECT_FALSE(storage.definition.namespaced);
  EXPECT_EQ(storage.definition.short_names, std::vector<std::string>{"csr"});
  EXPECT_EQ(storage.definition.subresources, (std::vector<std::string>{"approval", "status"}));
  EXPECT_TRUE(storage.definition.categories.empty());
  EXPECT_EQ(storage.strategy->selectable_field_names(), std::vector<std::string>{"spec.signerName"});
  EXPECT_TRUE(storage.strategy->name_is_path_segment());  // any name a URL can address
}

TEST(CertificateSigningRequestsTest, KubeletBootstrapRequestAccepted) {
  EXPECT_EQ(messages(certificates::validate_csr_create(csr(kKubeletCsr))), "");
  EXPECT_EQ(certificates::csr_organizations(kKubeletCsr), std::vector<std::string>{"system:nodes"});
}

TEST(CertificateSigningRequestsTest, RequestMustBeASignedPemCsr) {
  json::object object = csr("hi");
  EXPECT_EQ(messages(certificates::validate_csr_create(object)),
            "spec.request: Invalid value: []byte{0x68, 0x69}: PEM block type must be CERTIFICATE REQUEST\n");
  EXPECT_EQ(certificates::csr_pem_error(kCertificate), "PEM block type must be CERTIFICATE REQUEST");
  object["spec"].as_object().erase("request");
  EXPECT_EQ(messages(certificates::validate_csr_create(object)),
            "spec.request: Invalid value: []byte(nil): PEM block type must be CERTIFICATE REQUEST\n");
  // Other bits in the signature's last bytes (a base64 digit of the PEM's last full line changed).
  std::string tampered(kKubeletCsr);
  const std::size_t digit = tampered.find("\n-----END") - 10;
  tampered[digit] = tampered[digit] == 'A' ? 'B' : 'A';
  EXPECT_EQ(certificates::csr_pem_error(tampered), "x509: ECDSA verification failure");
}

TEST(CertificateSigningRequestsTest, SignerNameRules) {
  const auto signer_errors = [](std::string_view name) {
    return messages(certificates::validate_signer_name(validation::Path("spec").child("signerName"), name));
  };
  EXPECT_EQ(signer_errors(""), "spec.signerName: Required value: signerName must be provided\n");
  EXPECT_EQ(signer_errors("example"), "spec.signerName: Invalid value: \"example\": must be a fully qualified domain "
                                      "and path of the form 'example.com/signer-name'\n");
  EXPECT_EQ(signer_errors("a/b/c"), "spec.signerName: Invalid value: \"a/b/c\": must be a fully qualified domain "
                                    "and path of the form 'example.com/signer-name'\n");
  EXPECT_EQ(signer_errors("example/signer"),
            "spec.signerName: Invalid value: \"example\": should be a domain with at least two segments separated "
            "by dots\n");
  EXPECT_EQ(signer_errors("Example.com/signer"),
            "spec.signerName: Invalid value: \"Example.com\": validating label \"Example\": a lowercase RFC 1123 "
            "label must consist of lower case alphanumeric characters or '-', and must start and end with an "
            "alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
            "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')\n");
  EXPECT_EQ(signer_errors("example.com/a..b"),
            "spec.signerName: Invalid value: \"a..b\": validating label \"\": a lowercase RFC 1123 subdomain must "
            "consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric "
            "character (e.g. 'example.com', regex used for validation is "
            "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')\n");
  EXPECT_EQ(signer_errors("example.com/my-signer.ns.name"), "");
  EXPECT_EQ(messages(certificates::validate_csr_create(csr(kKubeletCsr, "kubernetes.io/legacy-unknown"))),
            "spec.signerName: Invalid value: \"kubernetes.io/legacy-unknown\": the legacy signerName is not allowed "
            "via this API version\n");
}

TEST(CertificateSigningRequestsTest, UsagesAndDuration) {
  EXPECT_EQ(messages(certificates::validate_csr_create(csr(kKubeletCsr, "example.com/s", {}))),
            "spec.usages: Required value: usages must be provided\n");
  EXPECT_EQ(messages(certificates::validate_csr_create(
                csr(kKubeletCsr, "example.com/s", {"client auth", "flying", "client auth"}))),
            "spec.usages[1]: Unsupported value: \"flying\": supported values: \"any\", \"cert sign\", \"client auth\", "
            "\"code signing\", \"content commitment\", \"crl sign\", \"data encipherment\", \"decipher only\", "
            "\"digital signature\", \"email protection\", \"encipher only\", \"ipsec end system\", \"ipsec tunnel\", "
            "\"ipsec user\", \"key agreement\", \"key encipherment\", \"microsoft sgc\", \"netscape sgc\", "
            "\"ocsp signing\", \"s/mime\", \"server auth\", \"signing\", \"timestamping\"\n"
            "spec.usages[2]: Duplicate value: \"client auth\"\n");
  json::object short_lived = csr(kKubeletCsr);
  short_lived["spec"].as_object()["expirationSeconds"] = 599;
  EXPECT_EQ(messages(certificates::validate_csr_create(short_lived)),
            "spec.expirationSeconds: Invalid value: 599: may not specify a duration less than 600 seconds (10 "
            "minutes)\n");
}

TEST(CertificateSigningRequestsTest, ApprovalOnlyThroughItsSubresource) {
  const json::object pending = csr(kKubeletCsr);
  const json::object approved = with_conditions(pending, {condition("Approved")});
  EXPECT_EQ(messages(certificates::validate_csr_update(approved, pending, CsrWrite::Approval)), "");
  EXPECT_EQ(messages(certificates::validate_csr_update(approved, pending, CsrWrite::Status)),
            "status.conditions: Forbidden: updates may not add a condition of type \"Approved\"\n");
  EXPECT_EQ(messages(certificates::validate_csr_update(pending, approved, CsrWrite::Approval)),
            "status.conditions: Forbidden: updates may not remove a condition of type \"Approved\"\n");
  const json::object both = with_conditions(pending, {condition("Approved"), condition("Denied")});
  EXPECT_EQ(messages(certificates::validate_csr_update(both, approved, CsrWrite::Approval)),
            "status.conditions[1].type: Invalid value: \"Denied\": Approved and Denied conditions are mutually "
            "exclusive\n");
  EXPECT_EQ(messages(certificates::validate_csr_update(with_conditions(pending, {condition("Approved", "False")}),
                                                        pending, CsrWrite::Approval)),
            "status.conditions[0].status: Unsupported value: \"False\": supported values: \"True\"\n");
  EXPECT_EQ(messages(certificates::validate_csr_create(with_conditions(pending, {condition("Ready"), condition("Ready")}))),
            "status.conditions[1].type: Duplicate value: \"Ready\"\n");
}

TEST(CertificateSigningRequestsTest, CertificateOnlyThroughStatusAndOnce) {
  const json::object approved = with_conditions(csr(kKubeletCsr), {condition("Approved")});
  json::object issued = approved;
  issued["status"].as_object()["certificate"] = base::base64_encode(kCertificate);
  EXPECT_EQ(messages(certificates::validate_csr_update(issued, approved, CsrWrite::Status)), "");
  EXPECT_EQ(messages(certificates::validate_csr_update(issued, approved, CsrWrite::Approval)),
            "status.certificate: Forbidden: updates may not set certificate content\n");
  json::object reissued = issued;
  reissued["status"].as_object()["certificate"] = base::base64_encode(std::string(kCertificate) + std::string(kCertificate));
  EXPECT_EQ(messages(certificates::validate_csr_update(reissued, issued, CsrWrite::Status)),
            "status.certificate: Forbidden: updates may not modify existing certificate content\n");
  json::object garbage = approved;
  garbage["status"].as_object()["certificate"] = base::base64_encode(kKubeletCsr);
  EXPECT_EQ(messages(certificates::validate_csr_update(garbage, approved, CsrWrite::Status)),
            "status.certificate: Invalid value: \"<certificate data>\": only CERTIFICATE PEM blocks are allowed, "
            "found \"CERTIFICATE REQUEST\"\n");
  garbage["status"].as_object()["certificate"] = base::base64_encode("no pem here");
  EXPECT_EQ(messages(certificates::validate_csr_update(garbage, approved, CsrWrite::Status)),
            "status.certificate: Invalid value: \"<certificate data>\": must contain at least one CERTIFICATE PEM "
            "block\n");
}

TEST(CertificateSigningRequestsTest, StrategyRecordsRequestorAndNarrowsSubresourceWrites) {
  ResourceStorage storage = certificatesigningrequests();
  const registry::Strategy& strategy = *storage.strategy;
  json::object object = with_conditions(csr(kKubeletCsr), {condition("Approved")});
  object["spec"].as_object()["username"] = "forged";
  strategy.prepare_for_create(object);
  EXPECT_EQ(object["status"], json::object());
  EXPECT_FALSE(object["spec"].as_object().contains("username"));
  strategy.record_requestor(object, request::UserInfo{"system:node:worker-1", "uid-1", {"system:nodes"}, {{"k", {"v"}}}});
  EXPECT_EQ(object["spec"].as_object()["username"], "system:node:worker-1");
  EXPECT_EQ(object["spec"].as_object()["uid"], "uid-1");
  EXPECT_EQ(object["spec"].as_object()["groups"], json::array{"system:nodes"});
  EXPECT_EQ(object["spec"].as_object()["extra"], json::parse(R"({"k":["v"]})"));

  // /approval changes the conditions only (timestamps filled); the stored certificate stays.
  json::object stored = object;
  stored["status"].as_object()["certificate"] = "c3RvcmVk";
  json::object approval = with_conditions(object, {condition("Approved")});
  strategy.prepare_for_subresource_update("approval", approval, stored);
  EXPECT_EQ(approval["status"].as_object()["certificate"], "c3RvcmVk");
  const json::object& approved_condition = approval["status"].as_object()["conditions"].as_array()[0].as_object();
  EXPECT_TRUE(approved_condition.contains("lastUpdateTime"));
  EXPECT_TRUE(approved_condition.contains("lastTransitionTime"));
  // /status keeps the stored Approved condition, whatever it sent.
  json::object approved_stored = with_conditions(object, {condition("Approved")});
  json::object status_write = with_conditions(object, {json::object{{"type", "Approved"}, {"status", "True"}, {"reason", "Changed"}}});
  strategy.prepare_for_subresource_update("status", status_write, approved_stored);
  EXPECT_EQ(status_write["status"].as_object()["conditions"].as_array()[0].as_object()["reason"], "Test");

  EXPECT_EQ(strategy.table_cells(approval)[2], "kubernetes.io/kube-apiserver-client-kubelet");
  EXPECT_EQ(strategy.table_cells(approval)[3], "system:node:worker-1");
  EXPECT_EQ(strategy.table_cells(approval)[4], "<none>");
  EXPECT_EQ(strategy.table_cells(approval)[5], "Approved,Issued");
  json::object pending = csr(kKubeletCsr);
  pending["spec"].as_object()["expirationSeconds"] = 3600;
  EXPECT_EQ(strategy.table_cells(pending)[4], "60m");
  EXPECT_EQ(strategy.table_cells(pending)[5], "Pending");
}

}  // namespace
}  // namespace kapi::apis::certificates_test
