#pragma once
// A test OpenID Connect issuer: an HTTPS server on 127.0.0.1 (its own CA, its own thread) serving the discovery
// document at /.well-known/openid-configuration and its key set at /keys, as Dex or Keycloak do, and minting ID
// tokens signed with its RSA and ECDSA keys. It also serves distributed claims (OIDC Core 1.0 §5.6.2, as Azure AD
// does for users in many groups): a JWT answered at claims_url(name) to whoever shows its access token, which an
// ID token names in "_claim_names" / "_claim_sources" (distributed_claims). Keys can be rotated (a new key
// published, the old one dropped), and
// the issuer can play dead: `stall` holds every connection open without answering, as a hung IdP does, and
// `refuse` closes every connection at once, as one that is down.
#include "server/authentication/jwt.h"

#include <boost/json/object.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace kapi::test_support {

class OidcIssuer {
 public:
  // Listens on `port` (0: any free one); keys: RS256 "rsa-1" and ES256 "ec-1" published.
  explicit OidcIssuer(std::uint16_t port = 0);
  ~OidcIssuer();
  OidcIssuer(const OidcIssuer&) = delete;
  OidcIssuer& operator=(const OidcIssuer&) = delete;

  const std::string& url() const { return url_; }  // https://127.0.0.1:<port>, the "iss" of its tokens
  std::uint16_t port() const { return port_; }
  const std::string& ca_pem() const { return ca_pem_; }
  // Writes the CA certificate to `path` (for --oidc-ca-file) and returns the path.
  std::string write_ca(const std::filesystem::path& path) const;

  // A signing key of the issuer; `algorithm` is any JWS algorithm the key type signs (RS*, PS* for RSA).
  struct Key {
    std::string key_id;
    std::string algorithm;
    authentication::jwt::SharedKey key;
  };
  // Generates a key ("RSA" or "EC") and publishes it under `key_id`; returns it.
  Key add_key(const std::string& key_id, const std::string& type, const std::string& algorithm);
  // Stops publishing `key_id` (the next key set fetch no longer has it).
  void remove_key(const std::string& key_id);
  // A key never published (a forger's), of the same type.
  static Key unpublished_key(const std::string& key_id, const std::string& type, const std::string& algorithm);

  // Claims of a fresh token: iss, sub, aud, iat, nbf, exp (an hour from now).
  boost::json::object claims(const std::string& subject, const std::string& audience) const;
  // The token signed with the published key `key_id` (its algorithm).
  std::string mint(const boost::json::object& claims, const std::string& key_id = "rsa-1") const;
  static std::string mint_with(const Key& key, const boost::json::object& claims);

  // Distributed claims: `jwt` served at claims_url(name) to requests bearing `access_token` (401 otherwise; none
  // given: no check). An unknown name is 404, `status` other than 200 answers that status with no JWT.
  std::string claims_url(const std::string& name) const { return url_ + "/claims/" + name; }
  void serve_claims(const std::string& name, std::string jwt, std::string access_token = "", int status = 200);
  // What an ID token carries to name `claim` as distributed from claims_url(source) with `access_token`:
  // "_claim_names": {claim: source}, "_claim_sources": {source: {endpoint, access_token}}, added to `claims`.
  boost::json::object distributed(boost::json::object claims, const std::string& claim, const std::string& source,
                                  const std::string& access_token = "") const;
  // How many requests reached claims_url(name), and the Authorization header of the last one ("" without).
  std::uint64_t claims_fetches(const std::string& name) const;
  std::string last_claims_authorization(const std::string& name) const;

  // Hold every new connection open without answering (true), or answer again (false).
  void stall(bool stalled) { stalled_ = stalled; }
  // Close every new connection at once, as an IdP that is down (true), or answer again (false).
  void refuse(bool refused) { refused_ = refused; }
  std::uint64_t key_set_fetches() const { return key_set_fetches_; }

  struct Server;

 private:
  std::string url_;
  std::uint16_t port_ = 0;
  std::string ca_pem_;
  std::atomic<bool> stalled_{false};
  std::atomic<bool> refused_{false};
  std::atomic<std::uint64_t> key_set_fetches_{0};
  std::unique_ptr<Server> server_;
};

}  // namespace kapi::test_support
