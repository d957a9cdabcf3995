#pragma once
// Compact JSON Web Signatures, the form of service account tokens and OIDC ID tokens (what kube gets from go-jose):
// signed with an RSA key as RS256/RS384/RS512 or PS256/PS384/PS512 (RSASSA-PSS) or an ECDSA key as
// ES256/ES384/ES512, verified against any of a set of public keys.
#include "server/pki/openssl_handles.h"

#include <boost/json/object.hpp>

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kapi::authentication::jwt {

using SharedKey = std::shared_ptr<EVP_PKEY>;

// The JWS "alg" for a key: RS256 for RSA, ES256/ES384/ES512 for P-256/P-384/P-521; empty when unsupported.
std::string algorithm_for(const EVP_PKEY* key);
// kube's key ID: the unpadded base64url of the SHA-256 of the public key's DER SubjectPublicKeyInfo.
std::string key_id(const EVP_PKEY* key);

// Whether `key` can make signatures of the JWS `algorithm` (an RSA key for RS*/PS*, an ECDSA key of the matching
// curve for ES*); false for "none" and anything unknown.
bool key_fits(const EVP_PKEY* key, std::string_view algorithm);

class Signer {
 public:
  // Throws std::invalid_argument for a key no JWS algorithm here signs with.
  explicit Signer(SharedKey private_key);
  // Signs as `algorithm` under `key_id` (an identity provider names its keys as it likes). Throws
  // std::invalid_argument when the key does not fit the algorithm.
  Signer(SharedKey private_key, std::string algorithm, std::string key_id);
  const std::string& algorithm() const { return algorithm_; }
  const std::string& key_id() const { return key_id_; }
  // header.claims.signature, the header naming the algorithm and the key ID.
  std::string sign(const boost::json::object& claims) const;

 private:
  SharedKey key_;
  std::string algorithm_;
  std::string key_id_;
};

struct Token {
  boost::json::object header;
  boost::json::object claims;
  std::string signing_input;  // the first two parts as sent, "header.claims"
  std::string signature;      // decoded
};

// A compact JWS with JSON object header and claims; std::nullopt for anything else (an opaque bearer token).
std::optional<Token> parse(std::string_view text);

// True when one of `keys` made the token's signature under the algorithm its header names. "none" and an
// algorithm that does not fit the key's type never verify.
bool verify(const Token& token, const std::vector<SharedKey>& keys);

// kube's keyutil.PublicKeysFromFile: every public key of a PEM file, whether written as a public key, a
// certificate or a private key. Throws std::runtime_error naming the file when it holds none or cannot be read.
std::vector<SharedKey> read_public_keys(const std::filesystem::path& path);
SharedKey read_private_key(const std::filesystem::path& path);

// The iss claim of a token that is not verified, to pick the authenticator that can verify it (kube's
// untrustedIssuer); empty when the token is no JWT.
std::string untrusted_issuer(std::string_view token);

}  // namespace kapi::authentication::jwt
