#include "server/healthz/healthz.h"

#include <set>

namespace kapi::server::healthz {
namespace {

asio::awaitable<void> write_text(http::ResponseWriter& response, int status, std::string body) {
  response.headers().set("Content-Type", "text/plain; charset=utf-8");
  response.headers().set("X-Content-Type-Options", "nosniff");
  co_await response.write(status, std::move(body));
}

}  // namespace

Check ping_check() {
  return {"ping", [] { return std::optional<std::string>(); }};
}

asio::awaitable<void> HealthEndpoint::serve(request::Exchange& exchange) const {
  const auto& request = exchange.request;
  auto& response = *exchange.response;
  std::string_view path = request.path;
  std::string root = "/" + name_;
  if (path.size() > root.size() + 1) {
    std::string_view check_name = path.substr(root.size() + 1);
    for (const auto& check : checks_) {
      if (check.name != check_name) continue;
      if (auto failure = check.probe())
        co_await write_text(response, 500, "internal server error: " + *failure + "\n");
      else
        co_await write_text(response, 200, "ok");
      co_return;
    }
    co_await write_text(response, 404, "404 page not found\n");
    co_return;
  }

  std::set<std::string, std::less<>> excluded;
  for (auto value : request.query.all("exclude")) excluded.emplace(value);
  bool verbose = request.query.has("verbose");

  std::string report;
  bool failed = false;
  for (const auto& check : checks_) {
    if (excluded.erase(check.name)) {
      report += "[+]" + check.name + " excluded: ok\n";
      continue;
    }
    if (auto failure = check.probe()) {
      failed = true;
      report += "[-]" + check.name + " failed: reason withheld\n";
    } else {
      report += "[+]" + check.name + " ok\n";
    }
  }
  for (const auto& name : excluded) report += "warn: some health checks cannot be excluded: no matches for \"" + name + "\"\n";

  if (failed) {
    co_await write_text(response, 500, report + name_ + " check failed\n");
  } else if (verbose) {
    co_await write_text(response, 200, report + name_ + " check passed\n");
  } else {
    co_await write_text(response, 200, "ok");
  }
}

}  // namespace kapi::server::healthz
