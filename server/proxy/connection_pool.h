#pragma once
// Keep-alive connections to backends, as Go's http.Transport keeps them for kube-apiserver's webhook clients
// (client-go's transport/cache.go: at most 25 idle connections per host, idleConnsPerHost; each closed after 90 s
// idle, the IdleConnTimeout k8s.io/apimachinery/pkg/util/net.SetTransportDefaults takes from http.DefaultTransport). A connection is dialled when no idle one fits, carries one request at a
// time, and goes back to the idle set only when its response was read to the end and the backend did not ask to
// close it; a connection that failed or ran out of time is closed. Idle connections are keyed by everything that
// makes them interchangeable: address, server name (SNI and verification), and the TLS context (the caBundle and
// client certificate it was made from).
//
// Each connection lives on a strand of its own (its socket and watchdog timer belong to it): a request runs there,
// whichever reactor thread or strand asked for it, so a connection is never touched from two places at once.
//
// Written for the admission webhooks; the aggregator's proxy (one connection per request) could share it.
#include "server/proxy/backend_client.h"

#include <asio/awaitable.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>

namespace kapi::proxy {

struct ConnectionPoolLimits {
  std::size_t max_idle_per_target = 25;            // client-go transport/cache.go's idleConnsPerHost
  std::chrono::milliseconds idle_timeout{90'000};  // http.DefaultTransport's IdleConnTimeout
  BackendClientLimits connection;
};

class ConnectionPool {
 public:
  using Clock = std::chrono::steady_clock;

  explicit ConnectionPool(ConnectionPoolLimits limits = {});
  ~ConnectionPool();
  ConnectionPool(const ConnectionPool&) = delete;
  ConnectionPool& operator=(const ConnectionPool&) = delete;

  // One request and its whole response (at most max_body bytes), on an idle connection to the backend or a new
  // one, everything — dial, handshake, request, response — before `deadline` ("context deadline exceeded" after).
  // The request is sent with "Connection: keep-alive". When a reused connection fails before any byte of the
  // response arrived because the backend had closed it (it may close an idle connection at any time, and the close
  // can cross our request), the request is sent once more on a new connection; never otherwise.
  // Throws as BackendConnection does. Safe from any thread; the arguments are taken by value, as a coroutine must.
  asio::awaitable<BackendResponse> exchange(Backend backend, BackendRequest request, Clock::time_point deadline,
                                            std::size_t max_body = 64 << 20);

  struct Counters {
    std::uint64_t dialed = 0;   // new connections made
    std::uint64_t reused = 0;   // requests sent on an idle connection
    std::uint64_t retried = 0;  // requests sent again after a reused connection turned out closed
    std::uint64_t stale = 0;    // idle connections found closed before use, and dropped
  };
  Counters counters() const;
  // Idle connections to the backend now (expired ones included until they are dropped).
  std::size_t idle_count(const Backend& backend) const;

  struct Shared;

 private:
  std::shared_ptr<Shared> shared_;  // shared with the requests running: they may finish after the pool is gone
};

}  // namespace kapi::proxy
