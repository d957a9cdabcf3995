#pragma once
// The operations of a linearizability history (history.h) run against kapi's real HTTPS API: ConfigMaps of one
// namespace that carry the history's label, so a LIST or watch of the label sees only the history's keys.
//
// Each call records its operation with the times around the request. What kube's clients could not tell apart is
// recorded as they would have to assume it: a timeout, a cut connection or a 5xx leaves the outcome Unknown. A
// request that never reached kapi (no connection could be made, as while kapi restarts) is not recorded at all.
#include "tests/support/http_client.h"
#include "tests/support/linearizability/history.h"

#include <boost/json/object.hpp>

#include <condition_variable>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

namespace kapi::test_support::linearizability {

// The string at object[first], or at object[first][second]: "" when it is missing or not a string.
std::string string_at(const boost::json::object& object, std::string_view first, std::string_view second = {});

// Where kapi listens now: a test that restarts kapi moves it to a new port (with the same CA and admin
// certificate). Thread-safe.
class KapiEndpoint {
 public:
  struct Address {
    int port = 0;
    TlsClientOptions tls;
    int generation = 0;  // bumped by each up(): a connection to an earlier one is to a kapi that is gone
  };

  void up(int port, TlsClientOptions tls);
  void down();
  // kapi's address once it is up, or std::nullopt at `deadline`.
  std::optional<Address> wait_until_up(Clock::time_point deadline) const;

 private:
  mutable std::mutex mutex_;
  mutable std::condition_variable changed_;
  std::optional<Address> address_;
  int generation_ = 0;
};

struct ClientSettings {
  std::string namespace_ = "default";
  std::string label;  // the history's: every object carries linearizability=<label>
  // kapi's own deadline for each request (?timeout=); the client waits longer, so that a request kapi gives up on
  // is answered 504 rather than cut.
  std::chrono::milliseconds request_timeout{1000};
  std::chrono::milliseconds client_timeout{5000};
  // How long a request waits for kapi to be up before it is given up unsent.
  std::chrono::milliseconds wait_for_kapi{20'000};
};

class ConfigMapClient {
 public:
  ConfigMapClient(const KapiEndpoint& endpoint, ClientSettings settings, int client, HistoryRecorder& history);

  // Each runs one operation and records it; std::nullopt when it never reached kapi.
  std::optional<Operation> get(const std::string& key);
  std::optional<Operation> create(const std::string& key, const std::string& value);
  std::optional<Operation> update(const std::string& key, const std::string& value, Revision precondition);
  std::optional<Operation> remove(const std::string& key, std::optional<Revision> precondition);
  std::optional<Operation> list();

  // Answers that fit no operation's contract (a 400 or 422, an unparsable body): a broken test, not a fault.
  const std::vector<std::string>& unexpected() const { return unexpected_; }

 private:
  struct Request {
    std::string method;
    std::string target;
    std::string body;
  };
  // Makes sure of a connection to the kapi that is up now (the kept one, unless it broke or kapi restarted since);
  // throws when none could be made, so that the request is never sent.
  void connect();
  // Runs `operation` (its verb, key and value already set) as `request`, then classifies the answer with
  // `settle` (which fills in outcome and results from a response) and records it.
  template <typename Settle>
  std::optional<Operation> run(Operation operation, const Request& request, Settle settle);
  std::string object_path(const std::string& key) const;
  std::string body_of(const std::string& key, const std::string& value, std::optional<Revision> version) const;

  const KapiEndpoint& endpoint_;
  const ClientSettings settings_;
  const int client_;
  HistoryRecorder& history_;
  std::optional<HttpConnection> connection_;
  int connection_generation_ = -1;
  std::vector<std::string> unexpected_;
};

}  // namespace kapi::test_support::linearizability
