#pragma once
// The scenarios kapi-bench runs, their options and what each run measured. Each scenario prepares what it needs
// (a namespace, N objects), runs under the load driver, and reports the server's cost when given its pid.
#include "bench/client/http_client.h"
#include "bench/load/driver.h"
#include "bench/load/histogram.h"
#include "bench/load/server_stats.h"

#include <asio/any_io_executor.hpp>
#include <asio/awaitable.hpp>

#include <optional>
#include <string>
#include <vector>
#include <sys/types.h>

namespace kapi::bench {

struct ScenarioOptions {
  std::string scenario;  // create | get | update | patch | list | watch | mixed | static | etcd-txn | fill
  std::string server;      // kapi's --insecure-port, nginx for `static`; empty: the kubeconfig's, or :8080
  std::string kubeconfig;  // HTTPS with its CA and client certificate
  std::string etcd = "http://127.0.0.1:2379";    // etcd-txn
  std::string namespace_name = "kapi-bench";
  std::size_t object_bytes = 1024;  // approximate size of each object's JSON
  std::size_t objects = 1000;       // get, list, fill: objects in the namespace
  bool populate = true;             // get, list: create the objects first (already existing ones are kept)
  bool consistent_list = false;     // get, list: a consistent read instead of resourceVersion=0 (from the cache)
  bool http2 = false;               // HTTP/2 over TLS instead of HTTP/1.1
  std::string path = "/";           // static: what to GET
  std::string collection;           // create: where to POST; empty: the namespace's ConfigMaps
  std::string body_template;        // create: the object to POST, each `{name}` replaced; empty: a ConfigMap
  std::size_t watchers = 100;       // watch
  double events_per_second = 100;   // watch
  std::string write_server;         // watch: where the writer creates (another server on the same etcd); empty: --server
  std::size_t nodes = 1000;               // mixed: simulated kubelets, each renewing its Lease every 10 s
  double pod_changes_per_second = 20;     // mixed: pod creates, status updates and deletes, together
  std::size_t informers = 4;              // mixed: clients that list and then watch every pod
  pid_t server_pid = 0;             // whose CPU and memory to report; 0: none
  LoadOptions load;
};

struct WatchFigures {
  std::size_t watchers = 0;
  std::size_t established = 0;
  std::uint64_t events_written = 0;       // writes the server acknowledged
  std::uint64_t deliveries = 0;           // events received, all watchers together
  std::uint64_t missing = 0;              // (watcher, acknowledged write) pairs never delivered
  std::uint64_t duplicates = 0;
  LatencyHistogram delivery_latency;      // write sent → event received, after the warm-up
  LatencySeries delivery_latency_over_time;  // the same, by the second of the run it was received in
  std::int64_t server_bytes_per_watcher = 0;  // RSS growth while establishing the idle watchers, divided by them
};

// The informer clients of the mixed scenario: each lists every pod, then watches from the list's revision.
struct InformerFigures {
  std::size_t informers = 0;
  std::size_t established = 0;
  std::uint64_t events = 0;  // watch events received, all informers together
};

// One kind of request within a scenario that runs several at once (mixed).
struct ScenarioPart {
  std::string name;
  LoadResult load;
};

struct ScenarioResult {
  std::string scenario;
  std::string parameters;  // human-readable: what was run, e.g. "concurrency=64 object=1024B"
  std::string target;      // what answered: "kapi", "nginx", "etcd"
  LoadResult load;
  std::optional<ServerUsage> server;
  std::optional<WatchFigures> watch;
  std::optional<InformerFigures> informers;
  std::vector<ScenarioPart> parts;  // mixed: each kind of request; `load` is then the mutating ones together
  std::size_t response_bytes = 0;  // get/list/static: size of one response body
  // kapi-bench's own CPU over the whole run (setup included): near one core means the harness, not the server,
  // may be the limit.
  double client_cpu_seconds = 0;
  std::size_t client_threads = 1;  // the reactors it ran on: its CPU budget is this many times the run's wall time
};

// The server to load, from --server and --kubeconfig. Throws std::invalid_argument or std::runtime_error.
ServerAddress server_address(const ScenarioOptions& options);

// `reactors`: where the request/response scenarios run their load, one thread each (run_load_on); empty, or for
// the watch, mixed and etcd-txn scenarios: on `executor`.
asio::awaitable<ScenarioResult> run_scenario(asio::any_io_executor executor, ScenarioOptions options,
                                             ProgressCallback progress, std::vector<asio::any_io_executor> reactors);

// Each scenario; run_scenario picks one by name.
asio::awaitable<ScenarioResult> run_http_scenario(asio::any_io_executor executor, const ScenarioOptions& options,
                                                  ProgressCallback progress,
                                                  std::vector<asio::any_io_executor> reactors);
asio::awaitable<ScenarioResult> run_watch_scenario(asio::any_io_executor executor, const ScenarioOptions& options,
                                                   ProgressCallback progress);
asio::awaitable<ScenarioResult> run_mixed_scenario(asio::any_io_executor executor, const ScenarioOptions& options,
                                                   ProgressCallback progress);
asio::awaitable<ScenarioResult> run_etcd_txn_scenario(asio::any_io_executor executor, const ScenarioOptions& options,
                                                      ProgressCallback progress);

}  // namespace kapi::bench
