#pragma once
// A coroutine client for the etcd v3 API: one gRPC channel per endpoint, calls go to the endpoint in use and move
// on to the next one when it is unreachable (the failover of clientv3's balancer, kept simple). Calls that cannot
// have been applied twice are retried with backoff until the request timeout; writes only when they provably never
// left this process, because a retried Txn that did apply would be reported as a conflict.
#include "protos/etcd/rpc.grpc.pb.h"
#include "storage/etcd3/grpc_bridge.h"

#include <asio/awaitable.hpp>
#include <grpcpp/channel.h>

#include <atomic>
#include <chrono>
#include <optional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace kapi::storage::etcd3 {

struct ClientOptions {
  // URLs as given to --etcd-servers: "http://127.0.0.1:2379", "https://etcd-0:2379" (a bare host:port is http).
  std::vector<std::string> endpoints{"http://127.0.0.1:2379"};
  // PEM files (--etcd-cafile, --etcd-certfile, --etcd-keyfile); with a CA file every endpoint uses TLS.
  std::string ca_file;
  std::string cert_file;
  std::string key_file;
  // Bound on one unary call including its retries.
  std::chrono::milliseconds request_timeout{std::chrono::seconds(15)};
  // Retry and watch-reconnect backoff: doubles from initial to max.
  std::chrono::milliseconds initial_backoff{50};
  std::chrono::milliseconds max_backoff{std::chrono::seconds(2)};
};

// A failed call, with the gRPC status etcd returned.
class RpcError : public std::runtime_error {
 public:
  RpcError(grpc::StatusCode code, const std::string& message)
      : std::runtime_error(message), code_(code) {}
  grpc::StatusCode code() const noexcept { return code_; }
  // etcd's ErrCompacted: the requested revision has been compacted.
  bool compacted() const;
  // etcd's ErrFutureRev: the requested revision is newer than the store's.
  bool future_revision() const;
  bool unreachable() const noexcept {
    return code_ == grpc::StatusCode::UNAVAILABLE || code_ == grpc::StatusCode::DEADLINE_EXCEEDED;
  }

 private:
  grpc::StatusCode code_;
};

using WatchCall = BidiStream<etcdserverpb::WatchRequest, etcdserverpb::WatchResponse>;

class Client {
 public:
  // Reads the TLS files (once, at startup) and creates the channels; throws std::invalid_argument on a bad
  // endpoint or unreadable file.
  explicit Client(ClientOptions options);
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  // `timeout` bounds this call and its retries instead of the request timeout (health checks answer fast).
  asio::awaitable<etcdserverpb::RangeResponse> range(etcdserverpb::RangeRequest request,
                                                     std::optional<std::chrono::milliseconds> timeout = {});
  asio::awaitable<etcdserverpb::TxnResponse> txn(etcdserverpb::TxnRequest request);
  asio::awaitable<etcdserverpb::CompactionResponse> compact(etcdserverpb::CompactionRequest request);
  asio::awaitable<etcdserverpb::LeaseGrantResponse> lease_grant(etcdserverpb::LeaseGrantRequest request);
  asio::awaitable<etcdserverpb::LeaseRevokeResponse> lease_revoke(etcdserverpb::LeaseRevokeRequest request);
  asio::awaitable<etcdserverpb::StatusResponse> status(etcdserverpb::StatusRequest request);
  // Each endpoint's etcd version (Maintenance.Status), asked of every endpoint itself, not failing over; nullopt
  // for an endpoint that did not answer within `timeout`.
  asio::awaitable<std::vector<std::optional<std::string>>> member_versions(std::chrono::milliseconds timeout);

  // Opens a Watch stream on the endpoint in use. The caller reconnects (open_watch again) when it breaks, after
  // report_broken_watch() so that the next stream tries another endpoint. The caller must cancel() the stream.
  std::shared_ptr<WatchCall> open_watch();
  void report_broken_watch();

  const ClientOptions& options() const noexcept { return options_; }
  // The backoff before attempt `attempt` (0-based), with jitter, capped at max_backoff.
  std::chrono::milliseconds backoff(int attempt) const;

 private:
  struct Endpoint;
  enum class Retry { IfNotApplied, IfNotSent };

  template <typename Response, typename Request, typename Start>
  asio::awaitable<Response> call(Retry retry, Request request, Start start,
                                std::optional<std::chrono::milliseconds> timeout = {});
  std::size_t pick_endpoint() const;
  void move_past(std::size_t failed);

  ClientOptions options_;
  std::vector<std::unique_ptr<Endpoint>> endpoints_;
  std::atomic<std::size_t> current_{0};
};

// The end of the key range holding every key with the given prefix (clientv3.GetPrefixRangeEnd).
std::string prefix_range_end(const std::string& prefix);

}  // namespace kapi::storage::etcd3
