#pragma once
// Request-header (front proxy) authentication (k8s.io/apiserver/pkg/authentication/request/headerrequest): a
// proxy that has authenticated the user itself, and proves who it is with a client certificate from
// --requestheader-client-ca-file whose CN is in --requestheader-allowed-names (any, when empty), names the user
// in headers (X-Remote-User, X-Remote-Group, X-Remote-Extra-*, X-Remote-Uid by convention). The headers are
// removed once read, so nothing behind the authentication stage sees them.
#include "server/authentication/authenticator.h"
#include "server/authentication/certificate_verifier.h"

#include <string>
#include <vector>

namespace kapi::authentication {

struct RequestHeaderConfig {
  std::vector<std::string> username_headers;       // the first one with a value wins
  std::vector<std::string> uid_headers;            // the first one with a value wins
  std::vector<std::string> group_headers;          // every non-empty value of each is a group
  std::vector<std::string> extra_header_prefixes;  // <prefix><key>: a value of extra[key]
  std::vector<std::string> allowed_names;          // the front proxy's allowed CNs; empty: any
};

// kube's requestHeaderAuthRequestHandler: the user `headers` name, removing every header the config names;
// NotApplicable (headers untouched) when no username header has a value. Extra keys are the rest of the header
// name after the prefix, lower-cased and percent-decoded (kept as sent when the escape is malformed).
Result user_from_headers(http::Headers& headers, const RequestHeaderConfig& config);

// kube's x509.Verifier around the header handler: with a client certificate, the chain must verify against the
// front proxy's CA and the CN must be allowed — otherwise the credential fails (a 401 unless another
// authenticator finds a user), never a fall through to the headers.
class RequestHeaderAuthenticator final : public Authenticator {
 public:
  RequestHeaderAuthenticator(CertificateVerifier verifier, RequestHeaderConfig config)
      : verifier_(std::move(verifier)), config_(std::move(config)) {}

  asio::awaitable<Result> authenticate(http::Request& request) const override;

 private:
  CertificateVerifier verifier_;
  RequestHeaderConfig config_;
};

}  // namespace kapi::authentication
