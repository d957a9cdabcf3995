// The reactor pool (server/http/reactor_pool.h): reactors handed out in turn, each run by a thread of its own until
// the main one stops, and an HttpServer's connections spread over them, each served where it was accepted to.
#include "server/http/http_server.h"
#include "server/http/reactor_pool.h"

#include <asio/co_spawn.hpp>
#include <asio/connect.hpp>
#include <asio/detached.hpp>
#include <asio/post.hpp>
#include <asio/read_until.hpp>
#include <asio/steady_timer.hpp>
#include <asio/use_awaitable.hpp>
#include <asio/write.hpp>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace kapi::http::reactor_pool_test {
namespace {

using namespace std::chrono_literals;

TEST(ReactorPoolTest, HandsOutEveryReactorInTurn) {
  asio::io_context main;
  ReactorPool pool(main, 3);
  ASSERT_EQ(pool.size(), 3u);
  std::vector<asio::io_context*> first_round;
  for (int i = 0; i < 3; ++i) first_round.push_back(&pool.next());
  EXPECT_EQ(first_round[0], &main);
  EXPECT_EQ(std::set<asio::io_context*>(first_round.begin(), first_round.end()).size(), 3u);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(&pool.next(), first_round[i]);  // the same order again
}

TEST(ReactorPoolTest, OneThreadMeansTheMainReactorAlone) {
  asio::io_context main;
  ReactorPool pool(main, 0);
  EXPECT_EQ(pool.size(), 1u);
  EXPECT_EQ(&pool.next(), &main);
  EXPECT_EQ(&pool.next(), &main);
}

TEST(ReactorPoolTest, RunsEachReactorOnAThreadOfItsOwnUntilTheMainOneStops) {
  asio::io_context main;
  ReactorPool pool(main, 3);
  std::mutex mutex;
  std::vector<std::thread::id> ran_on;
  std::vector<asio::io_context*> reactors;
  for (int i = 0; i < 3; ++i) reactors.push_back(&pool.next());
  for (asio::io_context* reactor : reactors) {
    asio::post(*reactor, [&] {
      std::lock_guard lock(mutex);
      ran_on.push_back(std::this_thread::get_id());
    });
  }
  // Work left on another reactor does not keep run() going once the main reactor stops.
  asio::steady_timer forever(*reactors[1], 1h);
  forever.async_wait([](const asio::error_code&) {});
  asio::steady_timer check(main);
  std::function<void()> stop_when_all_ran = [&] {
    {
      std::lock_guard lock(mutex);
      if (ran_on.size() == reactors.size()) {
        main.stop();
        return;
      }
    }
    check.expires_after(1ms);
    check.async_wait([&](const asio::error_code&) { stop_when_all_ran(); });
  };
  asio::post(main, stop_when_all_ran);

  const auto started = std::chrono::steady_clock::now();
  pool.run();
  EXPECT_LT(std::chrono::steady_clock::now() - started, 30s);
  ASSERT_EQ(ran_on.size(), 3u);
  EXPECT_EQ(std::set<std::thread::id>(ran_on.begin(), ran_on.end()).size(), 3u);
  EXPECT_NE(std::find(ran_on.begin(), ran_on.end(), std::this_thread::get_id()), ran_on.end())
      << "the main reactor runs on the thread that called run()";
}

// Four connections to a server on two reactors: each reactor serves two, and every request of a connection is
// served on its reactor's thread.
TEST(ReactorPoolTest, AnHttpServerSpreadsItsConnectionsOverThePool) {
  asio::io_context main;
  ReactorPool pool(main, 2);
  std::mutex mutex;
  std::vector<std::pair<std::string, std::thread::id>> served;  // (the client's address, the serving thread)
  HttpServer server(
      main, ConnectionOptions{},
      [&](Request& request, ResponseWriter& response) -> asio::awaitable<void> {
        {
          std::lock_guard lock(mutex);
          served.emplace_back(request.remote_address, std::this_thread::get_id());
        }
        co_await response.write(200, "ok");
      },
      &pool);
  const auto endpoint = server.listen({asio::ip::make_address("127.0.0.1"), 0}, nullptr);
  server.start();

  bool clients_done = false;
  auto clients = [&]() -> asio::awaitable<void> {
    std::vector<asio::ip::tcp::socket> sockets;
    for (int i = 0; i < 4; ++i) {
      sockets.emplace_back(main);
      co_await sockets.back().async_connect(endpoint, asio::use_awaitable);
    }
    for (int round = 0; round < 2; ++round) {
      for (auto& socket : sockets) {
        const std::string request = "GET /round HTTP/1.1\r\nHost: kapi\r\n\r\n";
        co_await asio::async_write(socket, asio::buffer(request), asio::use_awaitable);
        std::string response;
        co_await asio::async_read_until(socket, asio::dynamic_buffer(response), "\r\n\r\nok", asio::use_awaitable);
      }
    }
    for (auto& socket : sockets) socket.close();
    server.stop_accepting();
    asio::steady_timer timer(main);
    for (auto give_up = std::chrono::steady_clock::now() + 5s;
         server.connections().size() > 0 && std::chrono::steady_clock::now() < give_up;) {
      timer.expires_after(1ms);
      co_await timer.async_wait(asio::use_awaitable);
    }
    clients_done = true;
    main.stop();
  };
  asio::co_spawn(main, clients(), asio::detached);
  pool.run();

  ASSERT_TRUE(clients_done);
  EXPECT_EQ(server.connections().size(), 0u);
  ASSERT_EQ(served.size(), 8u);
  std::map<std::string, std::set<std::thread::id>> threads_of_connection;
  std::map<std::thread::id, std::set<std::string>> connections_of_thread;
  for (const auto& [client, thread] : served) {
    threads_of_connection[client].insert(thread);
    connections_of_thread[thread].insert(client);
  }
  ASSERT_EQ(threads_of_connection.size(), 4u);
  for (const auto& [client, threads] : threads_of_connection) EXPECT_EQ(threads.size(), 1u) << client;
  ASSERT_EQ(connections_of_thread.size(), 2u);
  for (const auto& [thread, clients_served] : connections_of_thread) EXPECT_EQ(clients_served.size(), 2u);
}

}  // namespace
}  // namespace kapi::http::reactor_pool_test
