#include "tests/support/oidc_issuer.h"

#include "server/authentication/jwk.h"
#include "server/pki/pem_io.h"
#include "server/pki/x509_builder.h"

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/io_context.hpp>
#include <asio/ip/tcp.hpp>
#include <asio/read_until.hpp>
#include <asio/ssl.hpp>
#include <asio/steady_timer.hpp>
#include <asio/use_awaitable.hpp>
#include <asio/write.hpp>
#include <boost/json.hpp>
#include <openssl/evp.h>

#include <cctype>
#include <fstream>
#include <map>
#include <mutex>
#include <thread>
#include <tuple>

namespace kapi::test_support {
namespace {

namespace json = boost::json;
using asio::ip::tcp;

authentication::jwt::SharedKey generate(const std::string& type) {
  if (type == "RSA") return authentication::jwt::SharedKey(pki::generate_rsa_key(2048).release(), &EVP_PKEY_free);
  return authentication::jwt::SharedKey(EVP_EC_gen("P-256"), &EVP_PKEY_free);
}

const char* reason(int status) {
  switch (status) {
    case 200: return "OK";
    case 401: return "Unauthorized";
    case 404: return "Not Found";
    case 500: return "Internal Server Error";
    default: return "Other";
  }
}

// A request header's value (`name` in lower case), "" when absent.
std::string header_of(const std::string& request, const std::string& name) {
  std::size_t line = request.find("\r\n");
  while (line != std::string::npos) {
    const std::size_t start = line + 2;
    const std::size_t end = request.find("\r\n", start);
    if (end == std::string::npos || end == start) break;
    const std::string field = request.substr(start, end - start);
    const std::size_t colon = field.find(':');
    std::string key = field.substr(0, colon);
    for (auto& c : key) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (colon != std::string::npos && key == name) {
      std::size_t value = colon + 1;
      while (value < field.size() && field[value] == ' ') ++value;
      return field.substr(value);
    }
    line = end;
  }
  return {};
}

std::int64_t unix_now() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

struct OidcIssuer::Server {
  asio::io_context io;
  asio::ssl::context tls{asio::ssl::context::tls_server};
  tcp::acceptor acceptor{io};
  mutable std::mutex mutex;
  std::vector<Key> keys;
  struct Claims {
    std::string jwt;
    std::string access_token;
    int status = 200;
    std::uint64_t fetches = 0;
    std::string last_authorization;
  };
  std::map<std::string, Claims> claims;
  std::thread thread;

  // The response to a GET of /claims/<name>, counting it.
  std::pair<int, std::string> claims_response(const std::string& name, const std::string& authorization) {
    std::lock_guard lock(mutex);
    auto found = claims.find(name);
    if (found == claims.end()) return {404, "404 page not found\n"};
    Claims& served = found->second;
    ++served.fetches;
    served.last_authorization = authorization;
    if (!served.access_token.empty() && authorization != "Bearer " + served.access_token)
      return {401, "{\"error\":\"invalid_token\"}"};
    if (served.status != 200) return {served.status, "{}"};
    return {200, served.jwt};
  }

  asio::awaitable<void> serve(tcp::socket socket, OidcIssuer* issuer) {
    if (issuer->stalled_) {
      // A hung IdP: the connection stays open, silent, until the issuer goes.
      asio::steady_timer forever(io, asio::steady_timer::time_point::max());
      co_await forever.async_wait(asio::use_awaitable);
      co_return;
    }
    if (issuer->refused_) co_return;  // the socket closes as the coroutine ends
    asio::ssl::stream<tcp::socket> stream(std::move(socket), tls);
    co_await stream.async_handshake(asio::ssl::stream_base::server, asio::use_awaitable);
    std::string request;
    co_await asio::async_read_until(stream, asio::dynamic_buffer(request), "\r\n\r\n", asio::use_awaitable);
    const auto space = request.find(' ');
    const std::string path = request.substr(space + 1, request.find(' ', space + 1) - space - 1);
    int status = 200;
    std::string body;
    std::string content_type = "application/json";
    if (path.starts_with("/claims/")) {
      std::tie(status, body) = claims_response(path.substr(8), header_of(request, "authorization"));
      if (status == 200) content_type = "application/jwt";
    } else if (path == "/.well-known/openid-configuration") {
      body = json::serialize(json::object{{"issuer", issuer->url_},
                                          {"jwks_uri", issuer->url_ + "/keys"},
                                          {"authorization_endpoint", issuer->url_ + "/auth"},
                                          {"response_types_supported", json::array{"id_token"}},
                                          {"subject_types_supported", json::array{"public"}},
                                          {"id_token_signing_alg_values_supported", json::array{"RS256", "ES256"}}});
    } else if (path == "/keys") {
      ++issuer->key_set_fetches_;
      json::array published;
      {
        std::lock_guard lock(mutex);
        for (const auto& key : keys) published.push_back(authentication::jwk::to_jwk(key.key.get(), key.key_id, key.algorithm));
      }
      body = json::serialize(json::object{{"keys", std::move(published)}});
    } else {
      status = 404;
      body = "404 page not found\n";
    }
    const std::string response = "HTTP/1.1 " + std::to_string(status) + " " + reason(status) +
                                 "\r\nContent-Type: " + content_type + "\r\nContent-Length: " +
                                 std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
    co_await asio::async_write(stream, asio::buffer(response), asio::use_awaitable);
    asio::error_code ignored;
    stream.next_layer().shutdown(tcp::socket::shutdown_both, ignored);
  }

  asio::awaitable<void> accept(OidcIssuer* issuer) {
    for (;;) {
      tcp::socket socket = co_await acceptor.async_accept(asio::use_awaitable);
      asio::co_spawn(io, serve(std::move(socket), issuer), asio::detached);
    }
  }
};

OidcIssuer::OidcIssuer(std::uint16_t port) : server_(std::make_unique<Server>()) {
  pki::EvpPkeyPtr ca_key = pki::generate_ecdsa_p256_key();
  pki::X509Ptr ca = pki::self_sign_certificate_authority(
      {.common_name = "test-oidc-issuer-ca", .usage = pki::CertificateUsage::certificate_authority}, ca_key.get());
  pki::EvpPkeyPtr serving_key = pki::generate_ecdsa_p256_key();
  pki::X509Ptr serving = pki::issue_certificate(
      {.common_name = "127.0.0.1",
       .usage = pki::CertificateUsage::server_auth,
       .subject_alt_names = {pki::parse_subject_alt_name("127.0.0.1")}},
      serving_key.get(), pki::Issuer{ca.get(), ca_key.get()});
  ca_pem_ = pki::certificate_to_pem(ca.get());
  const std::string chain = pki::certificate_to_pem(serving.get());
  const std::string key = pki::private_key_to_pem(serving_key.get());
  server_->tls.use_certificate_chain(asio::buffer(chain));
  server_->tls.use_private_key(asio::buffer(key), asio::ssl::context::pem);

  tcp::endpoint endpoint(asio::ip::make_address("127.0.0.1"), port);
  server_->acceptor.open(endpoint.protocol());
  server_->acceptor.set_option(tcp::acceptor::reuse_address(true));
  server_->acceptor.bind(endpoint);
  server_->acceptor.listen();
  port_ = server_->acceptor.local_endpoint().port();
  url_ = "https://127.0.0.1:" + std::to_string(port_);
  add_key("rsa-1", "RSA", "RS256");
  add_key("ec-1", "EC", "ES256");
  asio::co_spawn(server_->io, server_->accept(this), asio::detached);
  server_->thread = std::thread([this] { server_->io.run(); });
}

OidcIssuer::~OidcIssuer() {
  server_->io.stop();
  server_->thread.join();
}

std::string OidcIssuer::write_ca(const std::filesystem::path& path) const {
  std::ofstream(path) << ca_pem_;
  return path.string();
}

OidcIssuer::Key OidcIssuer::add_key(const std::string& key_id, const std::string& type, const std::string& algorithm) {
  Key key{key_id, algorithm, generate(type)};
  std::lock_guard lock(server_->mutex);
  server_->keys.push_back(key);
  return key;
}

void OidcIssuer::remove_key(const std::string& key_id) {
  std::lock_guard lock(server_->mutex);
  std::erase_if(server_->keys, [&](const Key& key) { return key.key_id == key_id; });
}

OidcIssuer::Key OidcIssuer::unpublished_key(const std::string& key_id, const std::string& type,
                                            const std::string& algorithm) {
  return Key{key_id, algorithm, generate(type)};
}

json::object OidcIssuer::claims(const std::string& subject, const std::string& audience) const {
  const std::int64_t now = unix_now();
  return json::object{{"iss", url_}, {"sub", subject}, {"aud", audience},
                      {"iat", now},  {"nbf", now},     {"exp", now + 3600}};
}

std::string OidcIssuer::mint(const json::object& claims, const std::string& key_id) const {
  std::lock_guard lock(server_->mutex);
  for (const auto& key : server_->keys)
    if (key.key_id == key_id) return mint_with(key, claims);
  throw std::invalid_argument("no published key " + key_id);
}

void OidcIssuer::serve_claims(const std::string& name, std::string jwt, std::string access_token, int status) {
  std::lock_guard lock(server_->mutex);
  Server::Claims& served = server_->claims[name];
  served.jwt = std::move(jwt);
  served.access_token = std::move(access_token);
  served.status = status;
}

json::object OidcIssuer::distributed(json::object claims, const std::string& claim, const std::string& source,
                                     const std::string& access_token) const {
  json::object endpoint{{"endpoint", claims_url(source)}};
  if (!access_token.empty()) endpoint["access_token"] = access_token;
  claims["_claim_names"] = json::object{{claim, source}};
  claims["_claim_sources"] = json::object{{source, std::move(endpoint)}};
  return claims;
}

std::uint64_t OidcIssuer::claims_fetches(const std::string& name) const {
  std::lock_guard lock(server_->mutex);
  auto found = server_->claims.find(name);
  return found == server_->claims.end() ? 0 : found->second.fetches;
}

std::string OidcIssuer::last_claims_authorization(const std::string& name) const {
  std::lock_guard lock(server_->mutex);
  auto found = server_->claims.find(name);
  return found == server_->claims.end() ? std::string() : found->second.last_authorization;
}

std::string OidcIssuer::mint_with(const Key& key, const json::object& claims) {
  return authentication::jwt::Signer(key.key, key.algorithm, key.key_id).sign(claims);
}

}  // namespace kapi::test_support
