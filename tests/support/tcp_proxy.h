#pragma once
// A TCP proxy on loopback for fault tests: kapi talks to etcd through it, and the test makes the network between
// them slow, silent or broken while both processes keep running.
//
//   delay   every chunk waits before it is passed on (a slow or distant link);
//   stall   nothing passes in either direction, and nobody is told (a partition: no FIN, no RST; the bytes
//           are held, as TCP would retransmit them, and delivered when the link flows again);
//   cut     every open connection is reset at once (a middlebox or a peer restart);
//   refuse  new connections are reset as soon as they are accepted (the peer's port closed).
//
// Threads: one accepting thread, and two forwarding threads per connection (one each way); every control method
// may be called from any thread. The destructor resets every connection and joins every thread.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace kapi::test_support {

class TcpProxy {
 public:
  // Listens on a free loopback port and forwards each connection to 127.0.0.1:target_port.
  explicit TcpProxy(int target_port);
  ~TcpProxy();
  TcpProxy(const TcpProxy&) = delete;
  TcpProxy& operator=(const TcpProxy&) = delete;

  int port() const { return port_; }
  std::string endpoint() const { return "http://127.0.0.1:" + std::to_string(port_); }

  void set_delay(std::chrono::milliseconds delay);
  void stall();
  void flow();  // ends a stall: the held bytes go on
  void cut();
  void refuse(bool refusing);

  std::size_t connections_accepted() const { return accepted_.load(); }
  std::size_t connections_cut() const { return cut_count_.load(); }

 private:
  struct Connection;

  void accept_loop();
  void forward(Connection& connection, int from, int to);
  // Waits while the link is stalled; false once the connection was cut or the proxy is closing.
  bool wait_for_flow(const Connection& connection);

  int target_port_;
  int listener_ = -1;
  int port_ = 0;
  std::atomic<bool> closing_{false};
  std::atomic<bool> refusing_{false};
  std::atomic<std::size_t> accepted_{0};
  std::atomic<std::size_t> cut_count_{0};

  mutable std::mutex mutex_;
  std::condition_variable flow_changed_;
  bool stalled_ = false;
  std::chrono::milliseconds delay_{0};
  std::list<std::unique_ptr<Connection>> connections_;
  std::thread acceptor_;
};

}  // namespace kapi::test_support
