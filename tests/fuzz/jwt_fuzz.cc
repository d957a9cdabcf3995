// Fuzzes the bearer tokens kapi reads as service account JWTs, as kube-apiserver's JWTTokenAuthenticator does
// (k8s.io/kubernetes/pkg/serviceaccount/jwt.go over go-jose): the compact JWS split and its base64url and JSON
// decoding (server/authentication/jwt.h), the signature check against fixed test keys, then the claims checks of
// server/authentication/service_account.h (issuer, audiences, time bounds with go-jose's leeway, the bound
// objects and the legacy Secret token) against a fake cluster holding one service account, pod, node and secret.
//
// The first input byte chooses what the rest is: even, the token as a client sends it; odd, the claims JSON, which
// is signed here with the test key so that mutations get past the signature to the claims checks. Its second bit
// asks, as a TokenReview would, for audiences of its own instead of the server's.
//
// The same bytes also go, as they are, to what the OIDC authenticator reads from an issuer and a token before
// verifying anything: the JWKS document (jwk.h: read whole or refused with std::runtime_error) and the token's
// unverified issuer (jwt::untrusted_issuer).
//
// parse() documents nullopt for what is no JWS, verify() false for a bad signature, and the authenticator a
// result, never an exception: anything escaping, a crash, a sanitizer report or a timeout is a finding. So is a
// token signed here that does not parse back to its claims or does not verify, and an authenticated user other
// than the one service account the fake cluster holds.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include <asio/co_spawn.hpp>
#include <asio/io_context.hpp>
#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <openssl/pem.h>

#include "base/base64.h"
#include "server/authentication/jwk.h"
#include "server/authentication/jwt.h"
#include "server/authentication/jwt_authenticator.h"
#include "server/authentication/service_account.h"
#include "tests/fuzz/finding.h"

namespace {

using kapi::fuzz::finding;

namespace auth = kapi::authentication;
namespace json = boost::json;
using Outcome = auth::Result::Outcome;

constexpr std::string_view kIssuer = "https://kubernetes.default.svc.cluster.local";

// Keys made for this harness alone: the P-256 key signs the odd inputs; the RSA key's public half only verifies.
constexpr std::string_view kEcPrivateKey = R"(-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgKowdbpMHS6IDQDDQ
4H4gAzQ3IiKWsiEKhQ0UgeAJt6ShRANCAAQ9G7sZHdz0CHWg29a3/sWmCPqfTnmJ
z7W+2t/Terg/lVBLyLh0/NjyWBfPYiR5DjD0GCZjW+3PluH7hffTDb0v
-----END PRIVATE KEY-----
)";
constexpr std::string_view kRsaPublicKey = R"(-----BEGIN PUBLIC KEY-----
MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEArw9hFsUu6VDKQ0poxYiF
6yiTv+rUU3swtApLExmzMBIIqKp9LjEXSUYhjTEEuHsUCUkBCW/lH8EID+f422Ew
dw9og0UDKJrrOkmKzmLxaHull6LRp3wpqXYCcwgOOG9F9kathMwKlhYciZs518DD
pzZjQZceKYhA3Ziln8XWvZpJhBDCyBmgg/PBM4MOj2UtEzw0Oq9mLI6HrrDl1IWH
xV63MpRD5xpvSX72B9MFECQkUIJLj1PBkVrswRh7SssnYn7bxoCMaqNGOD/8ef7n
qZQxG7/JD/uZ7mPufuHXA03t9AI3T+MoLWIBNgNUY/mUctKTZ9P3vnmQ63f6e9LK
dQIDAQAB
-----END PUBLIC KEY-----
)";

// A fixed clock (2023-11-14T22:13:20Z), so that a seed's exp, nbf and iat mean the same on every run.
constexpr std::chrono::system_clock::time_point kNow{std::chrono::seconds(1700000000)};

auth::jwt::SharedKey read_key(std::string_view pem, bool is_private) {
  kapi::pki::BioPtr bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  EVP_PKEY* key = is_private ? PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr)
                             : PEM_read_bio_PUBKEY(bio.get(), nullptr, nullptr, nullptr);
  if (!key) finding("the harness's test key does not load", pem);
  return auth::jwt::SharedKey(key, &EVP_PKEY_free);
}

struct Harness {
  auth::jwt::SharedKey signing_key = read_key(kEcPrivateKey, true);
  auth::jwt::Signer signer{signing_key};
  std::vector<auth::jwt::SharedKey> keys{signing_key, read_key(kRsaPublicKey, false)};
  std::map<std::string, json::object> objects;  // "resource/namespace/name"
  std::string current_token;                      // what the legacy secret holds, so that its check can pass
  std::optional<auth::ServiceAccountTokenAuthenticator> authenticator;

  Harness() {
    add("serviceaccounts", "default", "robot", "sa-uid");
    add("pods", "default", "web", "pod-uid");
    add("nodes", "", "node-1", "node-uid");
    add("secrets", "default", "robot-token", "secret-uid");
    auth::ServiceAccountTokenOptions options;
    options.issuers = {std::string(kIssuer)};
    options.keys = keys;
    options.api_audiences = {std::string(kIssuer)};
    options.objects = [this](std::string resource, std::string namespace_,
                             std::string name) -> asio::awaitable<std::optional<json::object>> {
      auto it = objects.find(resource + "/" + namespace_ + "/" + name);
      if (it == objects.end()) co_return std::nullopt;
      json::object object = it->second;
      if (resource == "secrets")
        object["data"] = json::object{{"token", kapi::base::base64_encode(current_token)}};
      co_return object;
    };
    options.now = [] { return kNow; };
    authenticator.emplace(std::move(options));
  }

  void add(const std::string& resource, const std::string& namespace_, const std::string& name, const std::string& uid) {
    objects[resource + "/" + namespace_ + "/" + name] =
        json::object{{"metadata", json::object{{"name", name}, {"namespace", namespace_}, {"uid", uid}}}};
  }

  auth::Result authenticate(const std::string& token, const auth::Audiences& audiences) {
    current_token = token;
    asio::io_context io;
    std::optional<auth::Result> result;
    std::exception_ptr failure;
    asio::co_spawn(io, authenticator->authenticate_token(token, audiences),
                   [&](std::exception_ptr e, auth::Result r) {
                     failure = e;
                     result = std::move(r);
                   });
    io.run();
    if (failure) {
      try {
        std::rethrow_exception(failure);
      } catch (const std::exception& e) {
        finding(std::string("the authenticator threw: ") + e.what(), token);
      }
    }
    if (!result) finding("the authenticator never finished", token);
    return std::move(*result);
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static Harness harness;
  if (size == 0) return 0;
  const std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  const bool sign_here = (data[0] & 1) != 0;
  const auth::Audiences audiences =
      (data[0] & 2) != 0 ? auth::Audiences{"vault", std::string(kIssuer)} : auth::Audiences{};

  std::string token(rest);
  if (sign_here) {
    boost::system::error_code error;
    json::value claims = json::parse(rest, error);
    if (error || !claims.is_object()) return 0;
    // What the token carries is the claims as written out, which is what must read back: Boost.JSON reads a long
    // number to a double a little off the one it writes, and a number beyond a double's range as an infinity,
    // which no JSON can write (Go's decoder refuses it, so no issuer signs one).
    const json::value written = json::parse(json::serialize(claims), error);
    if (error) return 0;
    token = harness.signer.sign(claims.as_object());
    const auto parsed = auth::jwt::parse(token);
    if (!parsed) finding("a signed token does not parse", token);
    if (parsed->claims != written.as_object()) finding("a signed token's claims read back otherwise", token);
    if (!auth::jwt::verify(*parsed, harness.keys)) finding("a signed token does not verify", token);
  } else if (const auto parsed = auth::jwt::parse(token)) {
    auth::jwt::verify(*parsed, harness.keys);
  }

  try {
    for (const auto& key : auth::jwk::parse_key_set(rest))
      if (!key.key) finding("a key set read with a key missing", rest);
  } catch (const std::runtime_error&) {
  }
  auth::jwt::untrusted_issuer(token);

  const auth::Result result = harness.authenticate(token, audiences);
  switch (result.outcome) {
    case Outcome::Authenticated:
      if (result.user.name != "system:serviceaccount:default:robot")
        finding("authenticated as a user the cluster does not hold: " + result.user.name, token);
      if (result.audiences.empty()) finding("authenticated for no audience", token);
      break;
    case Outcome::Failed:
      if (result.error.empty()) finding("failed without a reason", token);
      break;
    case Outcome::NotApplicable:
      break;
  }
  return 0;
}
