#include "server/proxy/connection_pool.h"

#include "base/executor_target.h"
#include "server/http/low_priority_lane.h"

#include <asio/co_spawn.hpp>
#include <asio/io_context.hpp>
#include <asio/post.hpp>
#include <asio/ssl/error.hpp>
#include <asio/strand.hpp>
#include <asio/this_coro.hpp>
#include <asio/use_awaitable.hpp>

#include <deque>
#include <exception>
#include <map>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <tuple>
#include <vector>

namespace kapi::proxy {
namespace {

using Clock = std::chrono::steady_clock;

// What makes two connections interchangeable. The key holds the TLS context, so a context made for a new caBundle
// never shares an address with one that is gone.
struct Key {
  std::string host;
  std::uint16_t port = 0;
  std::string server_name;
  std::shared_ptr<asio::ssl::context> tls;
  bool verify_server_name = true;
  bool use_tls = true;

  auto tied() const { return std::tie(host, port, server_name, verify_server_name, use_tls); }
  bool operator<(const Key& other) const {
    if (tied() != other.tied()) return tied() < other.tied();
    return std::less<const asio::ssl::context*>()(tls.get(), other.tls.get());
  }
};

Key key_of(const Backend& backend) {
  return {backend.host, backend.port, backend.server_name, backend.tls, backend.verify_server_name, backend.use_tls};
}

// A connection and the strand it belongs to: its socket and timer are only touched there.
struct Pooled {
  Pooled(asio::any_io_executor executor, const Backend& backend, const BackendClientLimits& limits)
      : strand(std::move(executor)), connection(strand, backend, limits) {}
  asio::any_io_executor strand;
  BackendConnection connection;
  Clock::time_point idle_since;
};

// A strand on the reactor itself rather than on the caller's executor, which is usually the strand of the client
// connection that made the request, or its reactor's low-priority lane: the backend connection outlives that
// request and serves other ones.
asio::any_io_executor new_strand(const asio::any_io_executor& caller) {
  using IoExecutor = asio::io_context::executor_type;
  if (const auto* strand = base::executor_target<asio::strand<IoExecutor>>(caller))
    return asio::make_strand(strand->get_inner_executor());
  if (const auto* lane = base::executor_target<http::LowPriorityExecutor<IoExecutor>>(caller))
    return asio::make_strand(lane->reactor_executor());
  if (const auto* io = base::executor_target<IoExecutor>(caller)) return asio::make_strand(*io);
  return asio::make_strand(caller);
}

// Closes a connection where it lives.
void destroy_on_strand(std::unique_ptr<Pooled> pooled) {
  asio::any_io_executor strand = pooled->strand;
  asio::post(strand, [pooled = std::move(pooled)]() mutable { pooled.reset(); });
}

bool closed_by_peer(const std::error_code& code) {
  return code == asio::error::eof || code == asio::error::connection_reset || code == asio::error::broken_pipe ||
         code == asio::error::connection_aborted || code == asio::ssl::error::stream_truncated;
}

struct Attempt {
  std::optional<BackendResponse> response;
  std::exception_ptr error;
  bool stale = false;      // an idle connection found closed before anything was sent on it
  bool retryable = false;  // a reused connection the backend closed before any byte of the response
};

}  // namespace

struct ConnectionPool::Shared {
  explicit Shared(ConnectionPoolLimits pool_limits) : limits(std::move(pool_limits)) {}
  ~Shared() {
    for (auto& [key, connections] : idle)
      for (auto& pooled : connections) destroy_on_strand(std::move(pooled));
  }

  // The most recently returned idle connection for `key` (the least likely to have been closed by the backend's
  // own idle timeout), or null.
  std::unique_ptr<Pooled> take(const Key& key) {
    std::vector<std::unique_ptr<Pooled>> dropped;
    std::unique_ptr<Pooled> taken;
    {
      std::lock_guard lock(mutex);
      drop_expired(dropped);
      if (auto found = idle.find(key); found != idle.end()) {
        taken = std::move(found->second.back());
        found->second.pop_back();
        if (found->second.empty()) idle.erase(found);
      }
    }
    for (auto& pooled : dropped) destroy_on_strand(std::move(pooled));
    return taken;
  }

  // Called on the connection's strand, the connection ready for another request.
  void give_back(Key key, std::unique_ptr<Pooled> pooled) {
    std::vector<std::unique_ptr<Pooled>> dropped;
    {
      std::lock_guard lock(mutex);
      drop_expired(dropped);
      if (limits.max_idle_per_target > 0) {
        auto& connections = idle[std::move(key)];
        if (connections.size() < limits.max_idle_per_target) {
          pooled->idle_since = Clock::now();
          connections.push_back(std::move(pooled));
        }
      }
    }
    for (auto& dropped_one : dropped) destroy_on_strand(std::move(dropped_one));
    // `pooled`, when the target had enough idle connections already, is closed here, on its strand.
  }

  void drop_expired(std::vector<std::unique_ptr<Pooled>>& dropped) {
    const auto oldest = Clock::now() - limits.idle_timeout;
    for (auto entry = idle.begin(); entry != idle.end();) {
      auto& connections = entry->second;
      while (!connections.empty() && connections.front()->idle_since <= oldest) {
        dropped.push_back(std::move(connections.front()));
        connections.pop_front();
      }
      entry = connections.empty() ? idle.erase(entry) : std::next(entry);
    }
  }

  ConnectionPoolLimits limits;
  mutable std::mutex mutex;
  std::map<Key, std::deque<std::unique_ptr<Pooled>>> idle;  // oldest first
  Counters counters;
};

namespace {

// One request on one connection, run on the connection's strand. A connection fit for another request goes back
// to the pool from here; any other is closed when this returns.
asio::awaitable<Attempt> attempt_on(std::shared_ptr<ConnectionPool::Shared> shared, Key key,
                                    std::unique_ptr<Pooled> pooled, bool reused,
                                    std::shared_ptr<const BackendRequest> request, Clock::time_point deadline,
                                    std::size_t max_body) {
  Attempt attempt;
  BackendConnection& connection = pooled->connection;
  if (reused && !connection.idle_and_open()) {
    attempt.stale = true;
    co_return attempt;
  }
  connection.set_deadline(deadline);
  BackendResponse response;
  try {
    if (!reused) co_await connection.connect();
    co_await connection.send(*request);
    ResponseHead head = co_await connection.read_head();
    response.status = head.status;
    response.headers = std::move(head.headers);
    for (;;) {
      std::optional<std::string> piece = co_await connection.read_body();
      if (!piece) break;
      if (response.body.size() + piece->size() > max_body)
        throw std::runtime_error("the backend's response body exceeds " + std::to_string(max_body) + " bytes");
      response.body.append(*piece);
    }
  } catch (const std::system_error& error) {
    attempt.error = std::current_exception();
    attempt.retryable = reused && !connection.response_started() && !connection.timed_out() &&
                        closed_by_peer(error.code());
  } catch (...) {
    attempt.error = std::current_exception();
  }
  if (attempt.error) {
    connection.close();
    co_return attempt;
  }
  if (connection.reusable()) {
    connection.reset_for_next_request();
    // The watchdog now bounds the idle time: it closes the socket if the connection is not used again in time
    // (the pool drops the entry when it next looks).
    connection.set_deadline(Clock::now() + shared->limits.idle_timeout);
    shared->give_back(std::move(key), std::move(pooled));
  }
  attempt.response = std::move(response);
  co_return attempt;
}

}  // namespace

ConnectionPool::ConnectionPool(ConnectionPoolLimits limits) : shared_(std::make_shared<Shared>(std::move(limits))) {}

ConnectionPool::~ConnectionPool() = default;

asio::awaitable<BackendResponse> ConnectionPool::exchange(Backend backend, BackendRequest request,
                                                          Clock::time_point deadline, std::size_t max_body) {
  if (!backend.tls) throw std::invalid_argument("backend " + backend.server_name + " has no TLS context");
  request.keep_alive = true;
  const auto shared_request = std::make_shared<const BackendRequest>(std::move(request));
  const asio::any_io_executor caller = co_await asio::this_coro::executor;
  const Key key = key_of(backend);
  bool retried = false;
  for (;;) {
    // After a retryable failure the request goes on a new connection: the idle ones are as old as the one that
    // failed.
    std::unique_ptr<Pooled> pooled = retried ? nullptr : shared_->take(key);
    const bool reused = pooled != nullptr;
    if (!reused) pooled = std::make_unique<Pooled>(new_strand(caller), backend, shared_->limits.connection);
    asio::any_io_executor strand = pooled->strand;
    auto attempting = asio::co_spawn(strand,
                                     attempt_on(shared_, key, std::move(pooled), reused, shared_request, deadline,
                                                max_body),
                                     asio::use_awaitable);
    Attempt attempt = co_await std::move(attempting);
    {
      std::lock_guard lock(shared_->mutex);
      if (attempt.stale) ++shared_->counters.stale;
      else if (reused) ++shared_->counters.reused;
      else ++shared_->counters.dialed;
      if (attempt.error && attempt.retryable && !retried) ++shared_->counters.retried;
    }
    if (attempt.stale) continue;
    if (attempt.error) {
      if (attempt.retryable && !retried) {
        retried = true;
        continue;
      }
      std::rethrow_exception(attempt.error);
    }
    co_return std::move(*attempt.response);
  }
}

ConnectionPool::Counters ConnectionPool::counters() const {
  std::lock_guard lock(shared_->mutex);
  return shared_->counters;
}

std::size_t ConnectionPool::idle_count(const Backend& backend) const {
  std::lock_guard lock(shared_->mutex);
  auto found = shared_->idle.find(key_of(backend));
  return found == shared_->idle.end() ? 0 : found->second.size();
}

}  // namespace kapi::proxy
