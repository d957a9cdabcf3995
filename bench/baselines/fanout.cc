// kapi-fanout-baseline: the least a server must do to deliver P5's watch events (issue 24's P5 (b)). It answers
// just the requests kapi-bench's `watch` scenario sends, over plain HTTP/1.1 as P5 talks to kapi's insecure port:
// the namespace create (201), the LIST that gives the starting resourceVersion, one chunked stream per watch, and
// each ConfigMap create, whose body becomes one event line encoded once and written to every watch connection.
// No storage, no filters, no parsing beyond the request line and Content-Length: what kapi does for an event
// beyond this is the cost of being an API server. Its deliveries per CPU-second are the baseline kapi's are
// measured against, in the same run.
//
//   kapi-fanout-baseline [--port=0] [--threads=N]     prints "listening on 127.0.0.1:PORT", serves until killed
//
// Threads: one io_context run by --threads threads (kapi's reactor count, every core by default). Each connection
// is one coroutine, so its socket sees one operation at a time; watches receive their events through a channel
// that any thread may send to. A watch whose channel is full (a client that stopped reading) is dropped.
#include <asio/buffer.hpp>
#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/experimental/concurrent_channel.hpp>
#include <asio/io_context.hpp>
#include <asio/ip/tcp.hpp>
#include <asio/read.hpp>
#include <asio/read_until.hpp>
#include <asio/streambuf.hpp>
#include <asio/use_awaitable.hpp>
#include <asio/write.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <iostream>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace {

using asio::ip::tcp;
using asio::use_awaitable;
using Chunk = std::shared_ptr<const std::string>;
using EventChannel = asio::experimental::concurrent_channel<void(std::error_code, Chunk)>;

constexpr std::size_t kQueuedEventsPerWatch = 4096;

struct Watch {
  explicit Watch(const asio::any_io_executor& executor) : events(executor, kQueuedEventsPerWatch) {}
  EventChannel events;
};

// Every watch, and the revision the creates count up.
class Hub {
 public:
  void add(const std::shared_ptr<Watch>& watch) {
    std::lock_guard lock(mutex_);
    watches_.insert(watch);
  }
  void remove(const std::shared_ptr<Watch>& watch) {
    std::lock_guard lock(mutex_);
    watches_.erase(watch);
  }
  std::uint64_t revision() const { return revision_.load(); }

  // A create: the object becomes one chunked event line, encoded once and queued on every watch.
  void created(std::string_view object) {
    ++revision_;
    std::string line = R"({"type":"ADDED","object":)";
    line.append(object).append("}\n");
    char size[24];
    const int size_length = std::snprintf(size, sizeof size, "%zx\r\n", line.size());
    auto chunk = std::make_shared<std::string>();
    chunk->reserve(static_cast<std::size_t>(size_length) + line.size() + 2);
    chunk->append(size, static_cast<std::size_t>(size_length)).append(line).append("\r\n");
    std::lock_guard lock(mutex_);
    for (const auto& watch : watches_)
      if (!watch->events.try_send(std::error_code{}, chunk)) watch->events.close();  // a reader that fell behind
  }

 private:
  std::mutex mutex_;
  std::set<std::shared_ptr<Watch>> watches_;
  std::atomic<std::uint64_t> revision_{1};
};

asio::awaitable<void> write_response(tcp::socket& socket, int status, std::string_view reason, std::string body) {
  std::string head = "HTTP/1.1 " + std::to_string(status) + " " + std::string(reason) +
                     "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
                     "\r\n\r\n";
  std::array<asio::const_buffer, 2> buffers{asio::buffer(head), asio::buffer(body)};
  co_await asio::async_write(socket, buffers, use_awaitable);
}

// The stream of one watch: its head, then whatever events are queued, written together.
asio::awaitable<void> stream_events(tcp::socket& socket, Hub& hub) {
  auto watch = std::make_shared<Watch>(socket.get_executor());
  hub.add(watch);
  struct Leave {
    Hub& hub;
    std::shared_ptr<Watch> watch;
    ~Leave() { hub.remove(watch); }
  } leave{hub, watch};
  constexpr std::string_view kHead =
      "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n";
  co_await asio::async_write(socket, asio::buffer(kHead), use_awaitable);
  std::vector<Chunk> batch;
  std::vector<asio::const_buffer> buffers;
  for (;;) {
    batch.clear();
    Chunk first = co_await watch->events.async_receive(use_awaitable);
    batch.push_back(std::move(first));
    while (batch.size() < 64 && watch->events.try_receive([&](std::error_code, Chunk chunk) {
      batch.push_back(std::move(chunk));
    })) {
    }
    buffers.clear();
    for (const auto& chunk : batch) buffers.push_back(asio::buffer(*chunk));
    co_await asio::async_write(socket, buffers, use_awaitable);
  }
}

std::size_t content_length(std::string_view head) {
  for (std::size_t at = head.find("\r\n"); at != std::string_view::npos; at = head.find("\r\n", at + 2)) {
    std::string_view line = head.substr(at + 2, head.find("\r\n", at + 2) - at - 2);
    constexpr std::string_view kName = "content-length:";
    if (line.size() <= kName.size()) continue;
    bool matches = true;
    for (std::size_t i = 0; i < kName.size(); ++i)
      if (std::tolower(static_cast<unsigned char>(line[i])) != kName[i]) matches = false;
    if (!matches) continue;
    std::string_view value = line.substr(kName.size());
    while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
    std::size_t length = 0;
    std::from_chars(value.data(), value.data() + value.size(), length);
    return length;
  }
  return 0;
}

asio::awaitable<void> serve(tcp::socket socket, Hub& hub) {
  asio::streambuf buffer;
  try {
    for (;;) {
      const std::size_t head_size = co_await asio::async_read_until(socket, buffer, "\r\n\r\n", use_awaitable);
      std::string head(asio::buffers_begin(buffer.data()), asio::buffers_begin(buffer.data()) + head_size);
      buffer.consume(head_size);
      const std::size_t length = content_length(head);
      if (buffer.size() < length) {
        const std::size_t missing = length - buffer.size();
        co_await asio::async_read(socket, buffer, asio::transfer_exactly(missing), use_awaitable);
      }
      std::string body(asio::buffers_begin(buffer.data()), asio::buffers_begin(buffer.data()) + length);
      buffer.consume(length);

      const std::string_view request_line = std::string_view(head).substr(0, head.find("\r\n"));
      const std::string_view method = request_line.substr(0, request_line.find(' '));
      const std::size_t target_start = method.size() + 1;
      const std::string_view target =
          request_line.substr(target_start, request_line.find(' ', target_start) - target_start);
      if (method == "GET" && target.find("watch=1") != std::string_view::npos) {
        co_await stream_events(socket, hub);
        co_return;
      }
      if (method == "GET" && target.find("/configmaps") != std::string_view::npos) {
        std::string list = R"({"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":")" +
                           std::to_string(hub.revision()) + R"("},"items":[]})";
        co_await write_response(socket, 200, "OK", std::move(list));
      } else if (method == "POST" && target.ends_with("/configmaps")) {
        hub.created(body);
        co_await write_response(socket, 201, "Created", std::move(body));
      } else if (method == "POST") {
        co_await write_response(socket, 201, "Created", std::move(body));  // the namespace
      } else {
        co_await write_response(socket, 404, "Not Found", R"({"kind":"Status","code":404})");
      }
    }
  } catch (const std::exception&) {
    // the client closed, or a watch was dropped
  }
}

asio::awaitable<void> listen(tcp::acceptor& acceptor, Hub& hub) {
  for (;;) {
    tcp::socket socket = co_await acceptor.async_accept(use_awaitable);
    socket.set_option(tcp::no_delay(true));
    const auto executor = socket.get_executor();
    asio::co_spawn(executor, serve(std::move(socket), hub), asio::detached);
  }
}

}  // namespace

int main(int argc, char** argv) {
  unsigned short port = 0;
  unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg.starts_with("--port=")) port = static_cast<unsigned short>(std::stoul(std::string(arg.substr(7))));
    else if (arg.starts_with("--threads=")) threads = static_cast<unsigned>(std::stoul(std::string(arg.substr(10))));
    else {
      std::cerr << "usage: kapi-fanout-baseline [--port=0] [--threads=N]\n";
      return 2;
    }
  }
  asio::io_context io(static_cast<int>(threads));
  tcp::acceptor acceptor(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), port));
  Hub hub;
  asio::co_spawn(io, listen(acceptor, hub), asio::detached);
  std::cout << "listening on 127.0.0.1:" << acceptor.local_endpoint().port() << std::endl;
  std::vector<std::thread> workers;
  for (unsigned i = 1; i < threads; ++i) workers.emplace_back([&io] { io.run(); });
  io.run();
  for (auto& worker : workers) worker.join();
}
