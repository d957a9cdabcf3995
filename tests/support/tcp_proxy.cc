#include "tests/support/tcp_proxy.h"

#include "tests/support/loopback.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace kapi::test_support {
namespace {

using namespace std::chrono_literals;

// How often a forwarding thread looks up from a quiet socket to notice a cut or the proxy closing.
constexpr int kPollMillis = 50;

[[noreturn]] void fail(const std::string& what) { throw std::runtime_error("tcp proxy: " + what + ": " + std::strerror(errno)); }

// Closes with a reset rather than a FIN: the peer sees ECONNRESET, as when a link is torn down.
void close_with_reset(int fd) {
  const linger abort_on_close{1, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &abort_on_close, sizeof abort_on_close);
  ::close(fd);
}

}  // namespace

struct TcpProxy::Connection {
  int client = -1;
  int upstream = -1;
  std::atomic<bool> cut{false};
  std::atomic<int> running{2};  // forwarding threads; the last one out closes both sockets
  std::thread to_upstream;
  std::thread to_client;

  void finished_one() {
    if (running.fetch_sub(1) != 1) return;
    if (cut) {
      close_with_reset(client);
      close_with_reset(upstream);
    } else {
      ::close(client);
      ::close(upstream);
    }
  }
};

TcpProxy::TcpProxy(int target_port) : target_port_(target_port) {
  listener_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listener_ < 0) fail("socket");
  const int yes = 1;
  ::setsockopt(listener_, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  sockaddr_in address = loopback(0);
  if (::bind(listener_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) fail("bind");
  if (::listen(listener_, 128) != 0) fail("listen");
  socklen_t length = sizeof address;
  ::getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &length);
  port_ = ntohs(address.sin_port);
  acceptor_ = std::thread([this] { accept_loop(); });
}

TcpProxy::~TcpProxy() {
  cut();
  closing_ = true;
  flow_changed_.notify_all();
  acceptor_.join();
  for (auto& connection : connections_) {
    connection->to_upstream.join();
    connection->to_client.join();
  }
  ::close(listener_);
}

void TcpProxy::set_delay(std::chrono::milliseconds delay) {
  std::lock_guard lock(mutex_);
  delay_ = delay;
}

void TcpProxy::stall() {
  std::lock_guard lock(mutex_);
  stalled_ = true;
}

void TcpProxy::flow() {
  {
    std::lock_guard lock(mutex_);
    stalled_ = false;
  }
  flow_changed_.notify_all();
}

void TcpProxy::cut() {
  {
    std::lock_guard lock(mutex_);
    for (auto& connection : connections_) {
      if (connection->running > 0 && !connection->cut.exchange(true)) ++cut_count_;
    }
  }
  flow_changed_.notify_all();  // a stalled forwarder gives up at once
}

void TcpProxy::refuse(bool refusing) { refusing_ = refusing; }

void TcpProxy::accept_loop() {
  while (!closing_) {
    pollfd ready{listener_, POLLIN, 0};
    if (::poll(&ready, 1, kPollMillis) <= 0) continue;
    const int client = ::accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
    if (client < 0) continue;
    if (refusing_) {
      close_with_reset(client);
      continue;
    }
    const int upstream = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in target = loopback(target_port_);
    if (upstream < 0 || ::connect(upstream, reinterpret_cast<sockaddr*>(&target), sizeof target) != 0) {
      if (upstream >= 0) ::close(upstream);
      close_with_reset(client);  // the target is down: the client sees what it would see without the proxy
      continue;
    }
    const int yes = 1;
    ::setsockopt(client, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof yes);
    ::setsockopt(upstream, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof yes);
    ++accepted_;

    std::lock_guard lock(mutex_);
    // Threads of connections that ended are joined here, so a long test does not accumulate them.
    for (auto it = connections_.begin(); it != connections_.end();) {
      if ((*it)->running == 0) {
        (*it)->to_upstream.join();
        (*it)->to_client.join();
        it = connections_.erase(it);
      } else {
        ++it;
      }
    }
    auto connection = std::make_unique<Connection>();
    connection->client = client;
    connection->upstream = upstream;
    Connection& added = *connection;
    connections_.push_back(std::move(connection));
    added.to_upstream = std::thread([this, &added] { forward(added, added.client, added.upstream); });
    added.to_client = std::thread([this, &added] { forward(added, added.upstream, added.client); });
  }
}

bool TcpProxy::wait_for_flow(const Connection& connection) {
  std::unique_lock lock(mutex_);
  flow_changed_.wait(lock, [&] { return !stalled_ || connection.cut || closing_; });
  if (connection.cut || closing_) return false;
  const auto delay = delay_;
  if (delay > 0ms) {
    flow_changed_.wait_for(lock, delay, [&] { return connection.cut || closing_; });
  }
  return !connection.cut && !closing_;
}

void TcpProxy::forward(Connection& connection, int from, int to) {
  char buffer[64 * 1024];
  while (!connection.cut && !closing_) {
    pollfd readable{from, POLLIN, 0};
    if (::poll(&readable, 1, kPollMillis) <= 0) continue;
    const ssize_t received = ::recv(from, buffer, sizeof buffer, 0);
    if (received <= 0) {
      ::shutdown(to, SHUT_WR);  // pass the end of the stream on
      break;
    }
    if (!wait_for_flow(connection)) break;
    for (ssize_t sent = 0; sent < received && !connection.cut && !closing_;) {
      pollfd writable{to, POLLOUT, 0};
      if (::poll(&writable, 1, kPollMillis) <= 0) continue;
      const ssize_t n = ::send(to, buffer + sent, static_cast<std::size_t>(received - sent), MSG_NOSIGNAL);
      if (n <= 0) {
        connection.cut = true;  // the other side is gone: tear this side down too
        break;
      }
      sent += n;
    }
  }
  connection.finished_one();
}

}  // namespace kapi::test_support
