#include "server/authentication/jwk.h"

#include "base/base64.h"

#include <boost/json.hpp>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>

#include <memory>
#include <stdexcept>

namespace kapi::authentication::jwk {
namespace {

namespace json = boost::json;

using ParamBuildPtr = std::unique_ptr<OSSL_PARAM_BLD, pki::OpenSslDeleter<&OSSL_PARAM_BLD_free>>;
using ParamsPtr = std::unique_ptr<OSSL_PARAM, pki::OpenSslDeleter<&OSSL_PARAM_free>>;
using BignumPtr = std::unique_ptr<BIGNUM, pki::OpenSslDeleter<&BN_free>>;
using KeyContextPtr = std::unique_ptr<EVP_PKEY_CTX, pki::OpenSslDeleter<&EVP_PKEY_CTX_free>>;

std::string member(const json::object& key, std::string_view name) {
  const json::value* value = key.if_contains(name);
  if (value && !value->is_string()) throw std::runtime_error("go-jose/go-jose: invalid JWK member \"" + std::string(name) + "\"");
  return value ? std::string(value->as_string()) : std::string();
}

std::string decoded_member(const json::object& key, std::string_view name) {
  auto bytes = base::base64_decode(member(key, name), base::Base64::kRawUrl);
  if (!bytes || bytes->empty())
    throw std::runtime_error("go-jose/go-jose: invalid " + std::string(name) + " in JWK");
  return std::move(*bytes);
}

BignumPtr to_bignum(const std::string& bytes) {
  return BignumPtr(BN_bin2bn(reinterpret_cast<const unsigned char*>(bytes.data()), static_cast<int>(bytes.size()), nullptr));
}

jwt::SharedKey from_params(const char* type, OSSL_PARAM_BLD* build) {
  ParamsPtr params(OSSL_PARAM_BLD_to_param(build));
  KeyContextPtr context(EVP_PKEY_CTX_new_from_name(nullptr, type, nullptr));
  EVP_PKEY* key = nullptr;
  if (!params || !context || EVP_PKEY_fromdata_init(context.get()) != 1 ||
      EVP_PKEY_fromdata(context.get(), &key, EVP_PKEY_PUBLIC_KEY, params.get()) != 1) {
    ERR_clear_error();
    throw std::runtime_error(std::string("go-jose/go-jose: invalid ") + type + " key in JWK");
  }
  return jwt::SharedKey(key, &EVP_PKEY_free);
}

jwt::SharedKey rsa_key(const json::object& key) {
  BignumPtr modulus = to_bignum(decoded_member(key, "n"));
  BignumPtr exponent = to_bignum(decoded_member(key, "e"));
  ParamBuildPtr build(OSSL_PARAM_BLD_new());
  if (!modulus || !exponent || !build || OSSL_PARAM_BLD_push_BN(build.get(), OSSL_PKEY_PARAM_RSA_N, modulus.get()) != 1 ||
      OSSL_PARAM_BLD_push_BN(build.get(), OSSL_PKEY_PARAM_RSA_E, exponent.get()) != 1)
    throw std::runtime_error("go-jose/go-jose: invalid RSA key in JWK");
  return from_params("RSA", build.get());
}

struct Curve {
  const char* jwk_name;
  const char* openssl_name;
  std::size_t coordinate_size;
};
constexpr Curve kCurves[] = {{"P-256", "prime256v1", 32}, {"P-384", "secp384r1", 48}, {"P-521", "secp521r1", 66}};

jwt::SharedKey ec_key(const json::object& key) {
  const std::string curve_name = member(key, "crv");
  const Curve* curve = nullptr;
  for (const auto& known : kCurves)
    if (curve_name == known.jwk_name) curve = &known;
  if (!curve) throw std::runtime_error("go-jose/go-jose: unsupported elliptic curve '" + curve_name + "'");
  const std::string x = decoded_member(key, "x"), y = decoded_member(key, "y");
  if (x.size() != curve->coordinate_size || y.size() != curve->coordinate_size)
    throw std::runtime_error("go-jose/go-jose: invalid EC key, coordinates of the wrong length");
  std::string point = "\x04" + x + y;  // SEC 1 uncompressed form
  ParamBuildPtr build(OSSL_PARAM_BLD_new());
  if (!build || OSSL_PARAM_BLD_push_utf8_string(build.get(), OSSL_PKEY_PARAM_GROUP_NAME, curve->openssl_name, 0) != 1 ||
      OSSL_PARAM_BLD_push_octet_string(build.get(), OSSL_PKEY_PARAM_PUB_KEY, point.data(), point.size()) != 1)
    throw std::runtime_error("go-jose/go-jose: invalid EC key in JWK");
  return from_params("EC", build.get());
}

std::string bignum_param(const EVP_PKEY* key, const char* name, std::size_t pad_to = 0) {
  BIGNUM* number = nullptr;
  if (EVP_PKEY_get_bn_param(key, name, &number) != 1) pki::throw_openssl_error("reading a public key");
  BignumPtr owned(number);
  const std::size_t size = std::max<std::size_t>(pad_to, static_cast<std::size_t>(BN_num_bytes(number)));
  std::string bytes(size, '\0');
  BN_bn2binpad(number, reinterpret_cast<unsigned char*>(bytes.data()), static_cast<int>(size));
  return base::base64_encode(bytes, base::Base64::kRawUrl);
}

}  // namespace

std::vector<Key> parse_key_set(std::string_view document) {
  boost::system::error_code error;
  json::value parsed = json::parse(document, error);
  if (error || !parsed.is_object()) throw std::runtime_error("invalid JSON in the key set");
  const json::value* keys = parsed.as_object().if_contains("keys");
  if (!keys || !keys->is_array()) throw std::runtime_error("the key set has no \"keys\" list");
  std::vector<Key> out;
  for (const auto& item : keys->as_array()) {
    if (!item.is_object()) throw std::runtime_error("a key of the set is not an object");
    const json::object& key = item.as_object();
    const std::string type = member(key, "kty");
    Key read{member(key, "kid"), member(key, "alg"), nullptr};
    if (type == "RSA") read.key = rsa_key(key);
    else if (type == "EC") read.key = ec_key(key);
    else throw std::runtime_error("go-jose/go-jose: unknown json web key type '" + type + "'");
    out.push_back(std::move(read));
  }
  return out;
}

json::object to_jwk(const EVP_PKEY* key, std::string_view key_id, std::string_view algorithm) {
  json::object jwk;
  switch (EVP_PKEY_get_base_id(key)) {
    case EVP_PKEY_RSA:
      jwk["kty"] = "RSA";
      jwk["n"] = bignum_param(key, OSSL_PKEY_PARAM_RSA_N);
      jwk["e"] = bignum_param(key, OSSL_PKEY_PARAM_RSA_E);
      break;
    case EVP_PKEY_EC: {
      const std::string natural = jwt::algorithm_for(key);
      const Curve& curve = natural == "ES256" ? kCurves[0] : natural == "ES384" ? kCurves[1] : kCurves[2];
      if (natural.empty()) throw std::invalid_argument("unsupported elliptic curve");
      jwk["kty"] = "EC";
      jwk["crv"] = curve.jwk_name;
      jwk["x"] = bignum_param(key, OSSL_PKEY_PARAM_EC_PUB_X, curve.coordinate_size);
      jwk["y"] = bignum_param(key, OSSL_PKEY_PARAM_EC_PUB_Y, curve.coordinate_size);
      break;
    }
    default:
      throw std::invalid_argument("only RSA and EC keys can be written as JWKs here");
  }
  jwk["kid"] = key_id;
  jwk["alg"] = algorithm;
  jwk["use"] = "sig";
  return jwk;
}

}  // namespace kapi::authentication::jwk
