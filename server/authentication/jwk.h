#pragma once
// JSON Web Keys (RFC 7517) as identity providers publish them at their jwks_uri, read as go-jose's
// JSONWebKeySet reads them for go-oidc's remote key set: RSA keys from "n" and "e", EC keys of P-256, P-384 and
// P-521 from "x" and "y". A set with one key go-jose cannot read is refused whole, as go-jose refuses it.
#include "server/authentication/jwt.h"

#include <boost/json/object.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace kapi::authentication::jwk {

struct Key {
  std::string key_id;     // "kid", may be empty
  std::string algorithm;  // "alg", may be empty
  jwt::SharedKey key;     // the public key
};

// The keys of a JWKS document ({"keys": [...]}); throws std::runtime_error saying what is wrong.
std::vector<Key> parse_key_set(std::string_view document);

// The public half of `key` as a JWK with "kid" and "alg" (for test issuers and kapi's own discovery documents).
// Throws std::invalid_argument for a key type JWKs here cannot carry.
boost::json::object to_jwk(const EVP_PKEY* key, std::string_view key_id, std::string_view algorithm);

}  // namespace kapi::authentication::jwk
