#pragma once
// One parsed HTTP/1.1 request, owned by the connection while it is being served.
#include "server/http/headers.h"
#include "server/http/query.h"

#include <openssl/types.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kapi::http {

// What TLS told us about the client's certificate. Verification against --client-ca-file happens during the
// handshake but does not fail it (like Go's tls.RequestClientCert): the authentication filter decides what an
// unverified cert means. Authenticators that trust other authorities (the front proxy's) verify `chain` against
// their own (kube's x509.Verifier does so with req.TLS.PeerCertificates).
struct PeerCertificate {
  bool verified = false;     // against --client-ca-file
  std::string verify_error;  // OpenSSL's reason when !verified
  std::string common_name;
  std::vector<std::string> organizations;
  // The leaf first, then the intermediates the client sent; empty when not known (tests that build a
  // PeerCertificate by hand).
  std::vector<std::shared_ptr<X509>> chain{};  // {}: a PeerCertificate built by hand may leave it out
};

// The client's going away while its request is served (its HTTP/2 stream reset, its connection closed): a
// long-running handler registers how to end, as Go's handlers watch the request context's Done(). The connection
// that carries the request fires it, on the strand where the handler runs too.
class ClientGone {
 public:
  // `end` runs once when the client goes, at once if it has gone already; a later call replaces it.
  void on_gone(std::function<void()> end) {
    if (gone_) {
      end();
      return;
    }
    end_ = std::move(end);
    if (auto start = std::exchange(start_watching_, nullptr)) start();
  }
  // How the connection starts noticing: called on the first on_gone, so that only the requests that wait for their
  // client to go pay for it (HTTP/1.1 reads the socket in the background then, as Go's server does).
  void watch_with(std::function<void()> start) { start_watching_ = std::move(start); }
  void forget() { end_ = nullptr; }
  void fire() {
    if (gone_) return;
    gone_ = true;
    if (auto end = std::exchange(end_, nullptr)) end();
  }
  bool gone() const { return gone_; }

 private:
  std::function<void()> end_;
  std::function<void()> start_watching_;
  bool gone_ = false;
};

struct Request {
  std::string method;      // "GET", "POST", ...
  std::string target;      // the request-target as sent: path plus "?query"
  std::string path;        // percent-decoded path
  std::string raw_query;   // after '?', undecoded
  QueryParams query;       // parsed raw_query
  Headers headers;
  std::string body;
  int version_minor = 1;   // HTTP/1.<minor>
  bool keep_alive = true;  // what the client asked for
  bool http2 = false;      // carried by an HTTP/2 stream (then version_minor means nothing)
  bool tls = false;
  std::string remote_address;  // "ip:port"
  std::optional<PeerCertificate> peer_certificate;
  ClientGone client_gone;
};

}  // namespace kapi::http
