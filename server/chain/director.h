#pragma once
// A server's director (APIServerHandler.director): API paths go to its route table (go-restful's role),
// everything else to its non-API mux, and what neither serves goes to the delegate — the next server.
#include "request/exchange.h"

#include <map>
#include <string>

namespace kapi::server::chain {

using request::Handler;

// Web services by root path: a service rooted at "/apis/apps/v1" serves that path and everything below it.
class RouteTable {
 public:
  void add(std::string root_path, Handler handler);
  const Handler* match(std::string_view path) const;
  bool empty() const { return services_.empty(); }

 private:
  std::map<std::string, Handler, std::less<>> services_;
};

// Non-API paths: exact paths and prefixes (a prefix ends in '/'), longest prefix wins (PathRecorderMux).
class PathMux {
 public:
  void handle(std::string path, Handler handler);
  void handle_prefix(std::string prefix, Handler handler);
  const Handler* match(std::string_view path) const;

 private:
  std::map<std::string, Handler, std::less<>> exact_;
  std::map<std::string, Handler, std::less<>> prefixes_;
};

class Director {
 public:
  Director(std::string name, Handler delegate) : name_(std::move(name)), delegate_(std::move(delegate)) {}
  const std::string& name() const { return name_; }
  RouteTable& routes() { return routes_; }
  PathMux& non_api() { return non_api_; }
  asio::awaitable<void> serve(request::Exchange& exchange) const;
  // This director as the delegate of the server in front of it.
  Handler as_handler() const {
    return [this](request::Exchange& exchange) { return serve(exchange); };
  }

 private:
  std::string name_;
  Handler delegate_;
  RouteTable routes_;
  PathMux non_api_;
};

}  // namespace kapi::server::chain
