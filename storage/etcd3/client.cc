#include "storage/etcd3/client.h"

#include <asio/steady_timer.hpp>
#include <asio/this_coro.hpp>
#include <grpcpp/create_channel.h>
#include <grpcpp/security/credentials.h>
#include <grpcpp/support/channel_arguments.h>

#include <algorithm>
#include <fstream>
#include <random>
#include <sstream>

namespace kapi::storage::etcd3 {
namespace {

std::string read_pem(const std::string& path) {
  if (path.empty()) return {};
  std::ifstream file(path, std::ios::binary);
  if (!file) throw std::invalid_argument("etcd3: cannot read " + path);
  std::ostringstream content;
  content << file.rdbuf();
  return content.str();
}

struct ParsedEndpoint {
  std::string target;  // host:port for gRPC
  bool tls = false;
};

ParsedEndpoint parse_endpoint(const std::string& url, bool tls_by_default) {
  ParsedEndpoint parsed{url, tls_by_default};
  if (auto scheme_end = url.find("://"); scheme_end != std::string::npos) {
    std::string scheme = url.substr(0, scheme_end);
    if (scheme == "https") {
      parsed.tls = true;
    } else if (scheme == "http") {
      parsed.tls = false;
    } else {
      throw std::invalid_argument("etcd3: unsupported endpoint scheme in " + url);
    }
    parsed.target = url.substr(scheme_end + 3);
  }
  if (auto path = parsed.target.find('/'); path != std::string::npos) parsed.target.resize(path);
  if (parsed.target.empty()) throw std::invalid_argument("etcd3: empty endpoint " + url);
  return parsed;
}

}  // namespace

bool RpcError::compacted() const {
  return std::string_view(what()).find("required revision has been compacted") != std::string_view::npos;
}

bool RpcError::future_revision() const {
  return std::string_view(what()).find("required revision is a future revision") != std::string_view::npos;
}

struct Client::Endpoint {
  std::string url;
  std::shared_ptr<grpc::Channel> channel;
  std::unique_ptr<etcdserverpb::KV::Stub> kv;
  std::unique_ptr<etcdserverpb::Watch::Stub> watch;
  std::unique_ptr<etcdserverpb::Lease::Stub> lease;
  std::unique_ptr<etcdserverpb::Maintenance::Stub> maintenance;
};

Client::Client(ClientOptions options) : options_(std::move(options)) {
  if (options_.endpoints.empty()) throw std::invalid_argument("etcd3: no endpoints");
  grpc::SslCredentialsOptions tls_files{read_pem(options_.ca_file), read_pem(options_.key_file),
                                        read_pem(options_.cert_file)};
  grpc::ChannelArguments arguments;
  // Lists of big resources arrive in one message (kube-apiserver sets no limit either).
  arguments.SetMaxReceiveMessageSize(-1);
  // gRPC's default reconnect backoff (1 s growing to 120 s) would keep a restarted etcd unused for minutes.
  arguments.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, static_cast<int>(options_.initial_backoff.count()));
  arguments.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, static_cast<int>(options_.max_backoff.count()));
  // Detect a silently dead peer, like kube-apiserver's DialKeepAliveTime/Timeout (30 s / 10 s).
  arguments.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS, 30'000);
  arguments.SetInt(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, 10'000);
  // Each client its own connections: tests run several stores against etcds that come and go.
  arguments.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);

  for (const auto& url : options_.endpoints) {
    auto parsed = parse_endpoint(url, !options_.ca_file.empty());
    auto credentials = parsed.tls ? grpc::SslCredentials(tls_files) : grpc::InsecureChannelCredentials();
    auto endpoint = std::make_unique<Endpoint>();
    endpoint->url = url;
    endpoint->channel = grpc::CreateCustomChannel(parsed.target, credentials, arguments);
    endpoint->kv = etcdserverpb::KV::NewStub(endpoint->channel);
    endpoint->watch = etcdserverpb::Watch::NewStub(endpoint->channel);
    endpoint->lease = etcdserverpb::Lease::NewStub(endpoint->channel);
    endpoint->maintenance = etcdserverpb::Maintenance::NewStub(endpoint->channel);
    endpoint->channel->GetState(/*try_to_connect=*/true);  // connect every endpoint early: failover finds one ready
    endpoints_.push_back(std::move(endpoint));
  }
}

Client::~Client() = default;

std::size_t Client::pick_endpoint() const {
  const std::size_t count = endpoints_.size();
  const std::size_t current = current_.load();
  for (std::size_t i = 0; i < count; ++i) {
    std::size_t index = (current + i) % count;
    if (endpoints_[index]->channel->GetState(false) == GRPC_CHANNEL_READY) return index;
  }
  for (std::size_t i = 0; i < count; ++i) {
    std::size_t index = (current + i) % count;
    if (endpoints_[index]->channel->GetState(true) != GRPC_CHANNEL_TRANSIENT_FAILURE) return index;
  }
  return current;
}

void Client::move_past(std::size_t failed) {
  std::size_t expected = failed;
  current_.compare_exchange_strong(expected, (failed + 1) % endpoints_.size());
}

std::chrono::milliseconds Client::backoff(int attempt) const {
  auto delay = options_.initial_backoff;
  for (int i = 0; i < attempt && delay < options_.max_backoff; ++i) delay *= 2;
  delay = std::min(delay, options_.max_backoff);
  // ±20% jitter so that many watchers do not reconnect in lockstep.
  std::minstd_rand random(std::random_device{}());
  std::uniform_real_distribution<double> jitter(0.8, 1.2);
  return std::chrono::milliseconds(static_cast<std::int64_t>(static_cast<double>(delay.count()) * jitter(random)));
}

template <typename Response, typename Request, typename Start>
asio::awaitable<Response> Client::call(Retry retry, Request request, Start start,
                                      std::optional<std::chrono::milliseconds> timeout) {
  const auto deadline = std::chrono::system_clock::now() + timeout.value_or(options_.request_timeout);
  for (int attempt = 0;; ++attempt) {
    const std::size_t index = pick_endpoint();
    Endpoint& endpoint = *endpoints_[index];
    // A fail-fast call on a channel that is not connected fails before anything is sent.
    const bool connected = endpoint.channel->GetState(true) == GRPC_CHANNEL_READY;
    CallSettings settings;
    settings.deadline = deadline;
    auto start_on_endpoint = [&](auto... arguments) { start(endpoint, arguments...); };
    auto result = co_await async_unary<Response>(start_on_endpoint, request, settings);
    if (result.status.ok()) co_return std::move(result.response);

    RpcError error(result.status.error_code(), result.status.error_message());
    if (error.code() != grpc::StatusCode::UNAVAILABLE) throw error;
    move_past(index);
    const bool may_retry = retry == Retry::IfNotApplied || !connected;
    const auto delay = backoff(attempt);
    if (!may_retry || std::chrono::system_clock::now() + delay >= deadline) throw error;
    asio::steady_timer timer(co_await asio::this_coro::executor, delay);
    co_await timer.async_wait(asio::use_awaitable);
  }
}

asio::awaitable<etcdserverpb::RangeResponse> Client::range(etcdserverpb::RangeRequest request,
                                                           std::optional<std::chrono::milliseconds> timeout) {
  return call<etcdserverpb::RangeResponse>(Retry::IfNotApplied, std::move(request),
                                           [](Endpoint& e, auto... a) { e.kv->async()->Range(a...); }, timeout);
}

asio::awaitable<etcdserverpb::TxnResponse> Client::txn(etcdserverpb::TxnRequest request) {
  return call<etcdserverpb::TxnResponse>(Retry::IfNotSent, std::move(request),
                                         [](Endpoint& e, auto... a) { e.kv->async()->Txn(a...); });
}

asio::awaitable<etcdserverpb::CompactionResponse> Client::compact(etcdserverpb::CompactionRequest request) {
  return call<etcdserverpb::CompactionResponse>(Retry::IfNotApplied, std::move(request),
                                                [](Endpoint& e, auto... a) { e.kv->async()->Compact(a...); });
}

asio::awaitable<etcdserverpb::LeaseGrantResponse> Client::lease_grant(etcdserverpb::LeaseGrantRequest request) {
  // A grant applied twice only leaves an unused lease behind, which expires on its own.
  return call<etcdserverpb::LeaseGrantResponse>(Retry::IfNotApplied, std::move(request),
                                                [](Endpoint& e, auto... a) { e.lease->async()->LeaseGrant(a...); });
}

asio::awaitable<etcdserverpb::LeaseRevokeResponse> Client::lease_revoke(etcdserverpb::LeaseRevokeRequest request) {
  return call<etcdserverpb::LeaseRevokeResponse>(
      Retry::IfNotApplied, std::move(request), [](Endpoint& e, auto... a) { e.lease->async()->LeaseRevoke(a...); });
}

asio::awaitable<etcdserverpb::StatusResponse> Client::status(etcdserverpb::StatusRequest request) {
  return call<etcdserverpb::StatusResponse>(Retry::IfNotApplied, std::move(request),
                                            [](Endpoint& e, auto... a) { e.maintenance->async()->Status(a...); });
}

asio::awaitable<std::vector<std::optional<std::string>>> Client::member_versions(std::chrono::milliseconds timeout) {
  std::vector<std::optional<std::string>> versions;
  for (const auto& endpoint : endpoints_) {
    CallSettings settings;
    settings.deadline = std::chrono::system_clock::now() + timeout;
    settings.wait_for_ready = true;  // a member still connecting gets until the deadline
    auto start = [&endpoint](auto... a) { endpoint->maintenance->async()->Status(a...); };
    etcdserverpb::StatusRequest request;
    auto call = async_unary<etcdserverpb::StatusResponse>(start, std::move(request), settings);
    auto result = co_await std::move(call);
    if (result.status.ok()) {
      versions.emplace_back(result.response.version());
    } else {
      versions.emplace_back(std::nullopt);
    }
  }
  co_return versions;
}

std::shared_ptr<WatchCall> Client::open_watch() {
  Endpoint& endpoint = *endpoints_[pick_endpoint()];
  CallSettings settings;
  // Like clientv3.WithRequireLeader: etcd ends the stream when its member loses the leader, instead of leaving
  // the watch silently stalled.
  settings.metadata.emplace_back("hasleader", "true");
  return WatchCall::open([&](auto... a) { endpoint.watch->async()->Watch(a...); }, settings);
}

void Client::report_broken_watch() { move_past(current_.load()); }

std::string prefix_range_end(const std::string& prefix) {
  std::string end = prefix;
  while (!end.empty()) {
    auto& last = reinterpret_cast<unsigned char&>(end.back());
    if (last < 0xff) {
      ++last;
      return end;
    }
    end.pop_back();
  }
  return std::string(1, '\0');  // no bigger prefix exists: every key from `prefix` on
}

}  // namespace kapi::storage::etcd3
