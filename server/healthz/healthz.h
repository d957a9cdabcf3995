#pragma once
// /healthz, /livez and /readyz with per-check sub-paths, ?verbose and ?exclude, in kube-apiserver's format
// (k8s.io/apiserver/pkg/server/healthz).
#include "request/exchange.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace kapi::server::healthz {

struct Check {
  std::string name;
  // std::nullopt when healthy; otherwise why not.
  std::function<std::optional<std::string>()> probe;
};

// One of the three endpoints with its checks.
class HealthEndpoint {
 public:
  explicit HealthEndpoint(std::string name) : name_(std::move(name)) {}  // "healthz", "livez", "readyz"
  void add(Check check) { checks_.push_back(std::move(check)); }
  const std::vector<Check>& checks() const { return checks_; }
  // Serves "/<name>" and "/<name>/<check>".
  asio::awaitable<void> serve(request::Exchange& exchange) const;

 private:
  std::string name_;
  std::vector<Check> checks_;
};

Check ping_check();

}  // namespace kapi::server::healthz
