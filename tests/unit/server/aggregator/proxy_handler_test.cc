// The aggregator's proxy to extension API servers over real sockets: a TLS backend (a kapi HttpServer with a serving
// certificate for api.wardle.svc that asks for front-proxy client certificates) and a plain front server whose
// handler calls proxy_to_backend for a fixed user; the tests drive the front with the blocking test client and check
// what the backend saw and what the client got, as kube-aggregator's proxyHandler would forward and answer.
#include "server/proxy/backend.h"
#include "server/proxy/backend_client.h"
#include "server/aggregator/proxy_handler.h"
#include "server/http/http_server.h"
#include "server/pki/pem_io.h"
#include "server/pki/x509_builder.h"
#include "tests/support/http_client.h"
#include "tests/support/io_thread.h"
#include "tests/support/temp_dir.h"

#include <gtest/gtest.h>

#include <asio/steady_timer.hpp>
#include <asio/this_coro.hpp>
#include <asio/use_awaitable.hpp>

#include <array>
#include <atomic>
#include <chrono>
#include <fstream>
#include <mutex>

namespace kapi::aggregator::proxy_handler_test {
namespace {

using namespace std::chrono_literals;
using test_support::HttpConnection;

void write_text(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

// Two unrelated CAs, each with a serving certificate for api.wardle.svc, and a front-proxy CA with the
// aggregator's client certificate. Built once: key generation is the slow part.
struct Pki {
  test_support::TempDir dir{"kapi-proxy-test"};
  std::string backend_ca_pem;
  std::string other_ca_pem;
  std::filesystem::path serving_cert, serving_key, front_proxy_ca, client_cert, client_key;

  Pki() {
    auto make_ca = [](const std::string& name, pki::EvpPkeyPtr& key) {
      key = pki::generate_ecdsa_p256_key();
      pki::CertificateRequest request{name, {}, pki::CertificateUsage::certificate_authority, 365, {}};
      return pki::self_sign_certificate_authority(request, key.get());
    };
    pki::EvpPkeyPtr backend_ca_key, other_ca_key, front_ca_key;
    auto backend_ca = make_ca("wardle-ca", backend_ca_key);
    auto other_ca = make_ca("unrelated-ca", other_ca_key);
    auto front_ca = make_ca("front-proxy-ca", front_ca_key);
    backend_ca_pem = pki::certificate_to_pem(backend_ca.get());
    other_ca_pem = pki::certificate_to_pem(other_ca.get());

    auto serving_key_pair = pki::generate_ecdsa_p256_key();
    pki::CertificateRequest serving{"api", {}, pki::CertificateUsage::server_auth, 365,
                                    {{pki::SubjectAltName::Kind::dns, "api.wardle.svc"}}};
    auto serving_cert_x509 =
        pki::issue_certificate(serving, serving_key_pair.get(), {backend_ca.get(), backend_ca_key.get()});

    auto client_key_pair = pki::generate_ecdsa_p256_key();
    pki::CertificateRequest client{"front-proxy-client", {}, pki::CertificateUsage::client_auth, 365, {}};
    auto client_cert_x509 = pki::issue_certificate(client, client_key_pair.get(), {front_ca.get(), front_ca_key.get()});

    serving_cert = dir.path() / "serving.crt";
    serving_key = dir.path() / "serving.key";
    front_proxy_ca = dir.path() / "front-proxy-ca.crt";
    client_cert = dir.path() / "proxy-client.crt";
    client_key = dir.path() / "proxy-client.key";
    write_text(serving_cert, pki::certificate_to_pem(serving_cert_x509.get()));
    write_text(serving_key, pki::private_key_to_pem(serving_key_pair.get()));
    write_text(front_proxy_ca, pki::certificate_to_pem(front_ca.get()));
    write_text(client_cert, pki::certificate_to_pem(client_cert_x509.get()));
    write_text(client_key, pki::private_key_to_pem(client_key_pair.get()));
  }
};

// What the backend saw of the last request.
struct Seen {
  std::string method, target, body;
  http::Headers headers;
  bool peer_verified = false;
  std::string peer_common_name;
};

class ProxyHandlerTest : public ::testing::Test {
 protected:
  static Pki& pki() {
    static Pki instance;
    return instance;
  }

  // A connection's watchdog sleeps until its read-header deadline even after the connection ended, and the
  // IoThread waits for it: a short deadline (longer than any request here) keeps each test's teardown short.
  static http::ConnectionOptions options() {
    http::ConnectionOptions options;
    options.read_header_timeout = 1s;
    return options;
  }

  void SetUp() override {
    backend_server_ = std::make_unique<http::HttpServer>(
        io_.context(), options(),
        [this](http::Request& request, http::ResponseWriter& response) { return serve_backend(request, response); });
    http::TlsFiles files{pki().serving_cert, pki().serving_key, {}, {pki().front_proxy_ca}};
    backend_port_ = backend_server_
                        ->listen({asio::ip::make_address("127.0.0.1"), 0}, http::make_server_tls_context(files))
                        .port();
    backend_server_->start();

    front_server_ = std::make_unique<http::HttpServer>(
        io_.context(), options(),
        [this](http::Request& request, http::ResponseWriter& response) { return serve_front(request, response); });
    front_port_ = front_server_->listen({asio::ip::make_address("127.0.0.1"), 0}, nullptr).port();
    front_server_->start();

    backend_ = trusted_backend();
  }

  void TearDown() override {
    release_ = true;
    backend_server_->stop_accepting();
    front_server_->stop_accepting();
    backend_server_->connections().close_all_when_idle();
    front_server_->connections().close_all_when_idle();
    // The servers go away with the fixture: let their connections and accept loops finish first.
    io_.run(drain());
  }

  asio::awaitable<void> drain() {
    asio::steady_timer timer(co_await asio::this_coro::executor);
    auto give_up = std::chrono::steady_clock::now() + 3s;
    while ((backend_server_->connections().size() > 0 || front_server_->connections().size() > 0) &&
           std::chrono::steady_clock::now() < give_up) {
      timer.expires_after(2ms);
      co_await timer.async_wait(asio::use_awaitable);
    }
    timer.expires_after(20ms);
    co_await timer.async_wait(asio::use_awaitable);
  }

  proxy::Backend trusted_backend() {
    return proxy::Backend{"127.0.0.1", backend_port_, "api.wardle.svc",
                   proxy::make_backend_tls(pki().backend_ca_pem, false, pki().client_cert, pki().client_key), true};
  }

  // Waits on the io thread, without blocking it, until the test thread says so (or the test ends).
  asio::awaitable<void> wait_for(std::atomic<bool>& flag, std::chrono::milliseconds limit) {
    asio::steady_timer timer(co_await asio::this_coro::executor);
    auto give_up = std::chrono::steady_clock::now() + limit;
    while (!flag && !release_ && std::chrono::steady_clock::now() < give_up) {
      timer.expires_after(2ms);
      co_await timer.async_wait(asio::use_awaitable);
    }
  }

  asio::awaitable<void> serve_backend(http::Request& request, http::ResponseWriter& response) {
    {
      std::lock_guard lock(mutex_);
      seen_ = Seen{request.method, request.target, request.body, request.headers, false, {}};
      if (request.peer_certificate) {
        seen_.peer_common_name = request.peer_certificate->common_name;
        // The server verifies against --client-ca-file only; the front-proxy CA is the request-header
        // authenticator's to check, as kube's is: do so here with the chain the client sent.
        seen_.peer_verified = verified_by_front_proxy_ca(*request.peer_certificate);
      }
    }
    const std::string& path = request.path;
    if (path == "/redirect") {
      response.headers().set("Location", "https://elsewhere.example/");
      co_await response.write(302, "go away");
    } else if (path == "/not-modified") {
      co_await response.write(304, "");
    } else if (path == "/stream") {
      response.headers().set("Content-Type", "application/json");
      co_await response.begin_stream(200);
      co_await response.write_chunk("{\"type\":\"ADDED\"}\n");
      co_await wait_for(first_chunk_read_, 5000ms);
      co_await response.write_chunk("{\"type\":\"MODIFIED\"}\n");
      co_await response.end_stream();
    } else if (path.ends_with("/exec")) {
      // An upgrade the backend accepts: what the client sends first comes back after "echo:".
      response.headers().set("Upgrade", "test-echo");
      auto switching = response.switch_protocols();
      std::unique_ptr<http::UpgradedStream> upgraded = co_await std::move(switching);
      std::array<char, 64> buffer{};
      auto reading = upgraded->read_some(buffer);
      const std::size_t n = co_await std::move(reading);
      const std::string reply = "echo:" + std::string(buffer.data(), n);
      co_await upgraded->write(reply);
      upgraded->close();
    } else if (path == "/big") {
      co_await response.write(200, std::string(3 << 20, 'x'));
    } else if (path == "/silent") {
      co_await wait_for(release_, 5000ms);
      co_await response.write(200, "late");
    } else {
      response.headers().set("Content-Type", "application/json");
      response.headers().set("X-Backend", "wardle");
      response.headers().set("Keep-Alive", "timeout=5");
      response.headers().set("Access-Control-Allow-Origin", "*");
      co_await response.write(201, "{\"kind\":\"Flunder\"}");
    }
  }

  bool verified_by_front_proxy_ca(const http::PeerCertificate& peer) {
    auto ca = pki::read_certificate_file(pki().front_proxy_ca);
    pki::X509StorePtr store(X509_STORE_new());
    X509_STORE_add_cert(store.get(), ca.get());
    pki::X509StoreContextPtr context(X509_STORE_CTX_new());
    if (peer.chain.empty()) return false;
    X509_STORE_CTX_init(context.get(), store.get(), peer.chain.front().get(), nullptr);
    return X509_verify_cert(context.get()) == 1;
  }

  asio::awaitable<void> serve_front(http::Request& request, http::ResponseWriter& response) {
    request::Exchange exchange{request, &response, {}};
    if (with_user_) {
      exchange.context.user = request::UserInfo{
          "alice", "uid-1", {"wardle-admins", "system:authenticated"}, {{"scopes.example.com/a b", {"x", "y"}}}};
    }
    proxy::Backend backend;
    {
      std::lock_guard lock(mutex_);
      backend = backend_;
    }
    co_await proxy_to_backend(exchange, backend);
  }

  Seen seen() {
    std::lock_guard lock(mutex_);
    return seen_;
  }

  void use_backend(proxy::Backend backend) {
    std::lock_guard lock(mutex_);
    backend_ = std::move(backend);
  }

  test_support::IoThread io_;
  std::unique_ptr<http::HttpServer> backend_server_;
  std::unique_ptr<http::HttpServer> front_server_;
  std::uint16_t backend_port_ = 0;
  int front_port_ = 0;
  std::mutex mutex_;
  Seen seen_;
  proxy::Backend backend_;
  bool with_user_ = true;
  std::atomic<bool> first_chunk_read_{false};
  std::atomic<bool> release_{false};
};

TEST_F(ProxyHandlerTest, ForwardsRequestAndIdentityAndRelaysTheAnswer) {
  HttpConnection client(front_port_);
  auto response = client.request("POST", "/apis/wardle.example.com/v1/namespaces/ns/flunders?watch=false&b=2&a=1&a=0",
                                 {{"Content-Type", "application/json"},
                                  {"Authorization", "Bearer secret"},
                                  {"X-Remote-User", "mallory"},
                                  {"X-Remote-Group", "system:masters"},
                                  {"X-Remote-Extra-Spoofed", "1"},
                                  {"Impersonate-User", "root"},
                                  {"Connection", "keep-alive, X-Hop"},
                                  {"X-Hop", "dropped"},
                                  {"Keep-Alive", "timeout=1"},
                                  {"X-Custom", "kept"}},
                                 "{\"kind\":\"Flunder\"}");
  EXPECT_EQ(response.status, 201);
  EXPECT_EQ(response.body, "{\"kind\":\"Flunder\"}");
  EXPECT_EQ(response.header("Content-Type").value_or(""), "application/json");
  EXPECT_EQ(response.header("X-Backend").value_or(""), "wardle");
  EXPECT_FALSE(response.has_header("Keep-Alive"));
  EXPECT_FALSE(response.has_header("Access-Control-Allow-Origin"));

  auto saw = seen();
  EXPECT_EQ(saw.method, "POST");
  // The query is re-encoded as kube's req.URL.Query().Encode() does: keys sorted, each key's values in order.
  EXPECT_EQ(saw.target, "/apis/wardle.example.com/v1/namespaces/ns/flunders?a=1&a=0&b=2&watch=false");
  EXPECT_EQ(saw.body, "{\"kind\":\"Flunder\"}");
  EXPECT_EQ(saw.headers.get("Content-Type").value_or(""), "application/json");
  EXPECT_EQ(saw.headers.get("X-Custom").value_or(""), "kept");
  EXPECT_FALSE(saw.headers.has("Authorization"));
  EXPECT_FALSE(saw.headers.has("Impersonate-User"));
  EXPECT_FALSE(saw.headers.has("X-Hop"));
  EXPECT_FALSE(saw.headers.has("Keep-Alive"));
  EXPECT_FALSE(saw.headers.has("X-Remote-Extra-Spoofed"));
  EXPECT_EQ(saw.headers.all("X-Remote-User"), std::vector<std::string_view>{"alice"});
  EXPECT_EQ(saw.headers.get("X-Remote-Uid").value_or(""), "uid-1");
  EXPECT_EQ(saw.headers.all("X-Remote-Group"),
            (std::vector<std::string_view>{"wardle-admins", "system:authenticated"}));
  EXPECT_EQ(saw.headers.all("X-Remote-Extra-scopes.example.com%2Fa%20b"), (std::vector<std::string_view>{"x", "y"}));
  EXPECT_EQ(saw.headers.get("X-Forwarded-For").value_or(""), "127.0.0.1");
  EXPECT_EQ(saw.headers.get("X-Forwarded-Proto").value_or(""), "https");
  EXPECT_EQ(saw.headers.get("X-Forwarded-Uri").value_or(""), "/apis/wardle.example.com/v1/namespaces/ns/flunders");
  EXPECT_EQ(saw.headers.get("Content-Length").value_or(""), "18");
  // The backend sees the aggregator's front-proxy client certificate, verified by the front-proxy CA.
  EXPECT_EQ(saw.peer_common_name, "front-proxy-client");
  EXPECT_TRUE(saw.peer_verified);
}

TEST_F(ProxyHandlerTest, StreamsChunksAsTheyArrive) {
  HttpConnection client(front_port_);
  client.send("GET /stream?watch=true HTTP/1.1\r\nHost: front\r\n\r\n");
  auto head = client.read_head(2000ms);
  EXPECT_EQ(head.status, 200);
  EXPECT_TRUE(head.chunked());
  EXPECT_EQ(head.header("Content-Type").value_or(""), "application/json");
  // The backend writes the second event only after this one has reached the client.
  EXPECT_EQ(client.read_chunk(2000ms).value_or(""), "{\"type\":\"ADDED\"}\n");
  first_chunk_read_ = true;
  EXPECT_EQ(client.read_chunk(2000ms).value_or(""), "{\"type\":\"MODIFIED\"}\n");
  EXPECT_FALSE(client.read_chunk(2000ms).has_value());
}

TEST_F(ProxyHandlerTest, StreamsABigBodyInsteadOfHoldingIt) {
  HttpConnection client(front_port_);
  auto response = client.request("GET", "/big");
  EXPECT_EQ(response.status, 200);
  EXPECT_TRUE(response.chunked());
  EXPECT_EQ(response.body.size(), std::size_t{3 << 20});
}

TEST_F(ProxyHandlerTest, RedirectsAreRejectedWith502) {
  HttpConnection client(front_port_);
  auto response = client.request("GET", "/redirect");
  EXPECT_EQ(response.status, 502);
  EXPECT_EQ(response.body, "the backend attempted to redirect this request, which is not permitted");
  EXPECT_FALSE(response.has_header("Location"));
  EXPECT_EQ(response.header("Content-Type").value_or(""), "text/plain; charset=utf-8");

  // A 3xx without a Location is not a redirect: it passes.
  auto not_modified = client.request("GET", "/not-modified");
  EXPECT_EQ(not_modified.status, 304);
}

TEST_F(ProxyHandlerTest, UntrustedCertificateIs503) {
  use_backend(proxy::Backend{"127.0.0.1", backend_port_, "api.wardle.svc",
                      proxy::make_backend_tls(pki().other_ca_pem, false, pki().client_cert, pki().client_key), true});
  HttpConnection client(front_port_);
  auto response = client.request("GET", "/apis/wardle.example.com/v1");
  EXPECT_EQ(response.status, 503);
  EXPECT_EQ(response.header("Content-Type").value_or(""), "text/plain; charset=utf-8");
  EXPECT_EQ(response.body.rfind("error trying to reach service: tls: failed to verify certificate", 0), 0u)
      << response.body;
}

TEST_F(ProxyHandlerTest, WrongServerNameIs503) {
  auto backend = trusted_backend();
  backend.server_name = "other.wardle.svc";
  use_backend(backend);
  HttpConnection client(front_port_);
  auto response = client.request("GET", "/apis/wardle.example.com/v1");
  EXPECT_EQ(response.status, 503);
  EXPECT_NE(response.body.find("failed to verify certificate for other.wardle.svc"), std::string::npos)
      << response.body;
}

TEST_F(ProxyHandlerTest, ConnectionRefusedIs503) {
  std::uint16_t closed_port = 0;
  {
    asio::io_context scratch;
    asio::ip::tcp::acceptor acceptor(scratch, {asio::ip::make_address("127.0.0.1"), 0});
    closed_port = acceptor.local_endpoint().port();
  }
  auto backend = trusted_backend();
  backend.port = closed_port;
  use_backend(backend);
  HttpConnection client(front_port_);
  auto response = client.request("GET", "/apis/wardle.example.com/v1");
  EXPECT_EQ(response.status, 503);
  EXPECT_EQ(response.body, "error trying to reach service: dial tcp 127.0.0.1:" + std::to_string(closed_port) +
                               ": connect: connection refused\n");
}

TEST_F(ProxyHandlerTest, InsecureSkipTLSVerifyAcceptsAnUnrelatedCertificate) {
  // Trusting another CA and naming another server: with verification off, neither matters.
  use_backend(proxy::Backend{"127.0.0.1", backend_port_, "unrelated.svc",
                      proxy::make_backend_tls(pki().other_ca_pem, true, pki().client_cert, pki().client_key), false});
  HttpConnection client(front_port_);
  auto response = client.request("GET", "/apis/wardle.example.com/v1/flunders");
  EXPECT_EQ(response.status, 201);
  EXPECT_EQ(seen().peer_common_name, "front-proxy-client");
}

TEST_F(ProxyHandlerTest, MissingUserIs500) {
  with_user_ = false;
  HttpConnection client(front_port_);
  auto response = client.request("GET", "/apis/wardle.example.com/v1");
  EXPECT_EQ(response.status, 500);
  EXPECT_EQ(response.body, "missing user\n");
}

TEST_F(ProxyHandlerTest, UpgradesAreSplicedToTheBackend) {
  HttpConnection client(front_port_);
  // The bytes after the request belong to the new protocol: they reach the backend once it has switched.
  client.send("GET /apis/wardle.example.com/v1/namespaces/ns/flunders/x/exec HTTP/1.1\r\nHost: front\r\n"
              "Connection: Upgrade\r\nUpgrade: test-echo\r\n\r\nping");
  auto head = client.read_head();
  EXPECT_EQ(head.status, 101);
  EXPECT_EQ(head.header("Upgrade").value_or(""), "test-echo");
  EXPECT_EQ(client.read_until_close(), "echo:ping");
}

TEST_F(ProxyHandlerTest, FetchReturnsStatusHeadersAndBody) {
  auto backend = trusted_backend();
  auto response = io_.run(proxy::fetch_from_backend(backend, "GET", "/apis/wardle.example.com/v1", {}, 2000ms));
  EXPECT_EQ(response.status, 201);
  EXPECT_EQ(response.body, "{\"kind\":\"Flunder\"}");
  EXPECT_EQ(response.headers.get("X-Backend").value_or(""), "wardle");
  EXPECT_EQ(seen().headers.get("Host").value_or(""), "127.0.0.1:" + std::to_string(backend_port_));

  auto big = io_.run(proxy::fetch_from_backend(backend, "GET", "/big", {}, 2000ms));
  EXPECT_EQ(big.body.size(), std::size_t{3 << 20});
  EXPECT_THROW(io_.run(proxy::fetch_from_backend(backend, "GET", "/big", {}, 2000ms, 1 << 20)), std::runtime_error);
}

TEST_F(ProxyHandlerTest, FetchGivesUpAtItsTimeout) {
  auto backend = trusted_backend();
  auto started = std::chrono::steady_clock::now();
  try {
    io_.run(proxy::fetch_from_backend(backend, "GET", "/silent", {}, 300ms));
    ADD_FAILURE() << "a backend that never answers must time out";
  } catch (const std::system_error& error) {
    EXPECT_STREQ(error.what(), "context deadline exceeded");
  }
  auto elapsed = std::chrono::steady_clock::now() - started;
  EXPECT_GE(elapsed, 290ms);
  EXPECT_LT(elapsed, 1500ms);
}

http::Request request_for(std::string target) {
  http::Request request;
  request.method = "GET";
  request.target = target;
  auto q = target.find('?');
  request.path = *http::percent_decode(target.substr(0, q), false);
  if (q != std::string::npos) request.raw_query = target.substr(q + 1);
  request.query = http::QueryParams::parse(request.raw_query);
  return request;
}

TEST(BackendTarget, KeepsTheEscapedPathAndReencodesTheQuery) {
  EXPECT_EQ(backend_target(request_for("/apis/w/v1/flunders/a%2Fb")), "/apis/w/v1/flunders/a%2Fb");
  EXPECT_EQ(backend_target(request_for("/apis/w/v1/flunders?labelSelector=a+in+(x,y)&limit=5")),
            "/apis/w/v1/flunders?labelSelector=a+in+%28x%2Cy%29&limit=5");
  // Go's Query() drops a pair with a bad escape or a raw ';'; an empty query leaves no '?'.
  EXPECT_EQ(backend_target(request_for("/apis/w/v1?x=%zz&y=1;2&z")), "/apis/w/v1?z=");
  EXPECT_EQ(backend_target(request_for("/apis/w/v1?")), "/apis/w/v1");
}

TEST(BackendTls, UnreadableClientCertificateNamesTheFile) {
  try {
    proxy::make_backend_tls("", false, "/nonexistent/proxy-client.crt", "/nonexistent/proxy-client.key");
    ADD_FAILURE() << "expected an error";
  } catch (const std::runtime_error& error) {
    EXPECT_NE(std::string(error.what()).find("/nonexistent/proxy-client.crt"), std::string::npos) << error.what();
  }
  EXPECT_THROW(proxy::make_backend_tls("not a certificate", false, {}, {}), std::runtime_error);
}

}  // namespace
}  // namespace kapi::aggregator::proxy_handler_test
