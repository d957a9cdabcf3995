#include "server/authentication/jwt.h"

#include "base/base64.h"
#include "server/pki/pem_io.h"

#include <boost/json.hpp>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <openssl/sha.h>

#include <stdexcept>

namespace kapi::authentication::jwt {
namespace {

// Every part of a compact JWS is unpadded base64url.
std::string base64url(std::string_view bytes) { return base::base64_encode(bytes, base::Base64::kRawUrl); }

using EvpMdContextPtr = std::unique_ptr<EVP_MD_CTX, pki::OpenSslDeleter<&EVP_MD_CTX_free>>;
using EcdsaSignaturePtr = std::unique_ptr<ECDSA_SIG, pki::OpenSslDeleter<&ECDSA_SIG_free>>;

const EVP_MD* digest_for(std::string_view algorithm) {
  if (algorithm == "RS256" || algorithm == "ES256" || algorithm == "PS256") return EVP_sha256();
  if (algorithm == "RS384" || algorithm == "ES384" || algorithm == "PS384") return EVP_sha384();
  if (algorithm == "RS512" || algorithm == "ES512" || algorithm == "PS512") return EVP_sha512();
  return nullptr;
}

bool is_ecdsa(std::string_view algorithm) { return algorithm.starts_with("ES"); }
bool is_rsa_pss(std::string_view algorithm) { return algorithm.starts_with("PS"); }

// RFC 7518 3.5: PSS with MGF1 over the same hash and a salt as long as the hash, as go-jose signs and verifies.
bool use_pss_padding(EVP_PKEY_CTX* context) {
  return EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_PSS_PADDING) == 1 &&
         EVP_PKEY_CTX_set_rsa_pss_saltlen(context, RSA_PSS_SALTLEN_DIGEST) == 1;
}

// The byte length of each of r and s in a JWS ECDSA signature.
std::size_t ecdsa_coordinate_size(std::string_view algorithm) {
  if (algorithm == "ES256") return 32;
  if (algorithm == "ES384") return 48;
  return 66;
}

// JWS writes an ECDSA signature as r||s, each padded to the curve's size; OpenSSL speaks DER.
std::string ecdsa_der_to_jws(const std::string& der, std::size_t coordinate_size) {
  const auto* cursor = reinterpret_cast<const unsigned char*>(der.data());
  EcdsaSignaturePtr signature(d2i_ECDSA_SIG(nullptr, &cursor, static_cast<long>(der.size())));
  if (!signature) pki::throw_openssl_error("decoding an ECDSA signature");
  std::string raw(2 * coordinate_size, '\0');
  auto* out = reinterpret_cast<unsigned char*>(raw.data());
  if (BN_bn2binpad(ECDSA_SIG_get0_r(signature.get()), out, static_cast<int>(coordinate_size)) < 0 ||
      BN_bn2binpad(ECDSA_SIG_get0_s(signature.get()), out + coordinate_size, static_cast<int>(coordinate_size)) < 0)
    pki::throw_openssl_error("encoding an ECDSA signature");
  return raw;
}

std::optional<std::string> ecdsa_jws_to_der(std::string_view raw, std::size_t coordinate_size) {
  if (raw.size() != 2 * coordinate_size) return std::nullopt;
  const auto* bytes = reinterpret_cast<const unsigned char*>(raw.data());
  EcdsaSignaturePtr signature(ECDSA_SIG_new());
  BIGNUM* r = BN_bin2bn(bytes, static_cast<int>(coordinate_size), nullptr);
  BIGNUM* s = BN_bin2bn(bytes + coordinate_size, static_cast<int>(coordinate_size), nullptr);
  if (!signature || !r || !s || ECDSA_SIG_set0(signature.get(), r, s) != 1) {
    BN_free(r);
    BN_free(s);
    return std::nullopt;
  }
  const int length = i2d_ECDSA_SIG(signature.get(), nullptr);
  if (length <= 0) return std::nullopt;
  std::string der(static_cast<std::size_t>(length), '\0');
  auto* out = reinterpret_cast<unsigned char*>(der.data());
  i2d_ECDSA_SIG(signature.get(), &out);
  return der;
}

std::optional<boost::json::object> decode_json_part(std::string_view part) {
  auto bytes = base::base64_decode(part, base::Base64::kRawUrl);
  if (!bytes) return std::nullopt;
  boost::system::error_code error;
  boost::json::value value = boost::json::parse(*bytes, error);
  if (error || !value.is_object()) return std::nullopt;
  return std::move(value.as_object());
}

SharedKey share(EVP_PKEY* key) { return SharedKey(key, &EVP_PKEY_free); }

}  // namespace

std::string algorithm_for(const EVP_PKEY* key) {
  switch (EVP_PKEY_get_base_id(key)) {
    case EVP_PKEY_RSA:
      return "RS256";
    case EVP_PKEY_EC: {
      char group[64] = {};
      if (EVP_PKEY_get_group_name(key, group, sizeof group, nullptr) != 1) return "";
      const std::string_view name(group);
      if (name == "prime256v1" || name == "P-256") return "ES256";
      if (name == "secp384r1" || name == "P-384") return "ES384";
      if (name == "secp521r1" || name == "P-521") return "ES512";
      return "";
    }
    default:
      return "";
  }
}

std::string key_id(const EVP_PKEY* key) {
  unsigned char* der = nullptr;
  const int length = i2d_PUBKEY(key, &der);
  if (length <= 0) pki::throw_openssl_error("encoding a public key");
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(der, static_cast<std::size_t>(length), digest);
  OPENSSL_free(der);
  return base64url(std::string_view(reinterpret_cast<const char*>(digest), sizeof digest));
}

bool key_fits(const EVP_PKEY* key, std::string_view algorithm) {
  const std::string natural = algorithm_for(key);
  if (natural == "RS256") return digest_for(algorithm) && !is_ecdsa(algorithm);
  return !natural.empty() && natural == algorithm;
}

Signer::Signer(SharedKey private_key) : key_(std::move(private_key)), algorithm_(algorithm_for(key_.get())) {
  if (algorithm_.empty()) throw std::invalid_argument("the key has no supported signing algorithm (RSA or ECDSA P-256/P-384/P-521)");
  key_id_ = jwt::key_id(key_.get());
}

Signer::Signer(SharedKey private_key, std::string algorithm, std::string key_id)
    : key_(std::move(private_key)), algorithm_(std::move(algorithm)), key_id_(std::move(key_id)) {
  if (!key_fits(key_.get(), algorithm_)) throw std::invalid_argument("the key cannot sign " + algorithm_);
}

std::string Signer::sign(const boost::json::object& claims) const {
  const boost::json::object header{{"alg", algorithm_}, {"kid", key_id_}};
  std::string signing_input =
      base64url(boost::json::serialize(header)) + "." + base64url(boost::json::serialize(claims));
  EvpMdContextPtr context(EVP_MD_CTX_new());
  std::size_t length = 0;
  EVP_PKEY_CTX* key_context = nullptr;
  if (!context || EVP_DigestSignInit(context.get(), &key_context, digest_for(algorithm_), nullptr, key_.get()) != 1 ||
      (is_rsa_pss(algorithm_) && !use_pss_padding(key_context)) ||
      EVP_DigestSign(context.get(), nullptr, &length, reinterpret_cast<const unsigned char*>(signing_input.data()),
                     signing_input.size()) != 1)
    pki::throw_openssl_error("signing a token");
  std::string signature(length, '\0');
  if (EVP_DigestSign(context.get(), reinterpret_cast<unsigned char*>(signature.data()), &length,
                     reinterpret_cast<const unsigned char*>(signing_input.data()), signing_input.size()) != 1)
    pki::throw_openssl_error("signing a token");
  signature.resize(length);
  if (is_ecdsa(algorithm_)) signature = ecdsa_der_to_jws(signature, ecdsa_coordinate_size(algorithm_));
  return signing_input + "." + base64url(signature);
}

std::optional<Token> parse(std::string_view text) {
  const auto first = text.find('.');
  if (first == std::string_view::npos) return std::nullopt;
  const auto second = text.find('.', first + 1);
  if (second == std::string_view::npos || text.find('.', second + 1) != std::string_view::npos) return std::nullopt;
  auto header = decode_json_part(text.substr(0, first));
  auto claims = decode_json_part(text.substr(first + 1, second - first - 1));
  auto signature = base::base64_decode(text.substr(second + 1), base::Base64::kRawUrl);
  if (!header || !claims || !signature) return std::nullopt;
  return Token{std::move(*header), std::move(*claims), std::string(text.substr(0, second)), std::move(*signature)};
}

bool verify(const Token& token, const std::vector<SharedKey>& keys) {
  const auto* alg = token.header.if_contains("alg");
  if (!alg || !alg->is_string()) return false;
  const std::string algorithm(alg->as_string());
  const EVP_MD* digest = digest_for(algorithm);
  if (!digest) return false;
  std::string signature = token.signature;
  if (is_ecdsa(algorithm)) {
    auto der = ecdsa_jws_to_der(signature, ecdsa_coordinate_size(algorithm));
    if (!der) return false;
    signature = std::move(*der);
  }
  for (const auto& key : keys) {
    if (!key_fits(key.get(), algorithm)) continue;
    EvpMdContextPtr context(EVP_MD_CTX_new());
    EVP_PKEY_CTX* key_context = nullptr;
    if (context && EVP_DigestVerifyInit(context.get(), &key_context, digest, nullptr, key.get()) == 1 &&
        (!is_rsa_pss(algorithm) || use_pss_padding(key_context)) &&
        EVP_DigestVerify(context.get(), reinterpret_cast<const unsigned char*>(signature.data()), signature.size(),
                         reinterpret_cast<const unsigned char*>(token.signing_input.data()),
                         token.signing_input.size()) == 1)
      return true;
  }
  ERR_clear_error();  // a key that did not fit leaves reasons behind that belong to nobody
  return false;
}

std::vector<SharedKey> read_public_keys(const std::filesystem::path& path) {
  const std::string text = pki::read_file(path);
  pki::BioPtr bio(BIO_new_mem_buf(text.data(), static_cast<int>(text.size())));
  std::vector<SharedKey> keys;
  for (;;) {
    char* name = nullptr;
    char* header = nullptr;
    unsigned char* data = nullptr;
    long length = 0;
    if (PEM_read_bio(bio.get(), &name, &header, &data, &length) != 1) break;
    const std::string_view type(name);
    const unsigned char* cursor = data;
    EVP_PKEY* key = nullptr;
    if (type == "PUBLIC KEY") {
      key = d2i_PUBKEY(nullptr, &cursor, length);
    } else if (type == "RSA PUBLIC KEY") {
      key = d2i_PublicKey(EVP_PKEY_RSA, nullptr, &cursor, length);
    } else if (type == "CERTIFICATE") {
      pki::X509Ptr certificate(d2i_X509(nullptr, &cursor, length));
      if (certificate) key = X509_get_pubkey(certificate.get());
    } else if (type == "PRIVATE KEY" || type == "RSA PRIVATE KEY" || type == "EC PRIVATE KEY") {
      key = d2i_AutoPrivateKey(nullptr, &cursor, length);
    }
    OPENSSL_free(name);
    OPENSSL_free(header);
    OPENSSL_free(data);
    if (key) keys.push_back(share(key));
  }
  ERR_clear_error();  // the loop ends on "no start line"
  if (keys.empty()) throw std::runtime_error("data does not contain any valid RSA or ECDSA public keys: " + path.string());
  return keys;
}

SharedKey read_private_key(const std::filesystem::path& path) {
  return share(pki::read_private_key_file(path).release());
}

std::string untrusted_issuer(std::string_view token) {
  const auto first = token.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && token[first] == '{') return {};
  const auto dot = token.find('.');
  if (dot == std::string_view::npos) return {};
  const auto second = token.find('.', dot + 1);
  if (second == std::string_view::npos || token.find('.', second + 1) != std::string_view::npos) return {};
  auto payload = base::base64_decode(token.substr(dot + 1, second - dot - 1), base::Base64::kRawUrl);
  if (!payload) return {};
  boost::system::error_code error;
  boost::json::value claims = boost::json::parse(*payload, error);
  if (error || !claims.is_object()) return {};
  const boost::json::value* iss = claims.as_object().if_contains("iss");
  if (!iss || !iss->is_string()) return {};
  // OpenID Connect Core 15.6.2: Google's legacy issuer without its scheme.
  if (iss->as_string() == "accounts.google.com") return "https://accounts.google.com";
  return std::string(iss->as_string());
}

}  // namespace kapi::authentication::jwt
