#pragma once
// How the test servers (the sample extension API server, the sample webhook) run once their HTTPS server is
// bound: announce the port on stdout in the line their process wrappers wait for, then serve until SIGINT or
// SIGTERM, when open connections end with the process.
#include "server/http/http_server.h"

#include <asio/io_context.hpp>
#include <asio/ip/tcp.hpp>
#include <asio/signal_set.hpp>

#include <csignal>
#include <iostream>
#include <string>
#include <string_view>

namespace kapi::sample_apiserver {

// Prints "<name> serving on https://<host>:<port>" (IPv6 hosts bracketed) and runs `io` until a signal.
inline void serve_until_signalled(asio::io_context& io, http::HttpServer& server, const asio::ip::tcp::endpoint& bound,
                                  std::string_view name) {
  std::string host = bound.address().to_string();
  if (bound.address().is_v6()) host = "[" + host + "]";
  std::cout << name << " serving on https://" << host << ":" << bound.port() << std::endl;
  asio::signal_set signals(io, SIGINT, SIGTERM);
  signals.async_wait([&](const asio::error_code& error, int) {
    if (error) return;
    server.stop_accepting();
    io.stop();
  });
  server.start();
  io.run();
}

}  // namespace kapi::sample_apiserver
