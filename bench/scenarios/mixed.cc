// mixed: a control plane's everyday traffic on a small scale. K simulated kubelets renew their node Leases every
// 10 s (kubelet's default) with the resourceVersion of their last write, as kubelet does; pods are created, given a
// status and deleted, P changes per second in all; informer clients list every pod and then watch them. The figure
// is the latency of the mutating requests together (Kubernetes' SLO: p99 <= 1 s for mutating calls), each kind
// also shown on its own.
#include "base/go_time.h"
#include "bench/scenarios/kube_api.h"
#include "bench/scenarios/scenario.h"

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/steady_timer.hpp>
#include <asio/use_awaitable.hpp>

#include <chrono>
#include <cstdio>
#include <memory>
#include <stdexcept>

namespace kapi::bench {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::string_view kLeaseNamespace = "kube-node-lease";
constexpr double kRenewIntervalSeconds = 10;
// A pod's status update is scheduled this long after its create, and its delete as long after the update: a
// request slower than that meets an object not there yet (404), which shows in the figures as it should.
constexpr std::chrono::seconds kPodStepGap{2};

std::string lease_json(std::string_view name, std::string_view resource_version) {
  std::string json = R"({"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":")";
  json.append(name).append("\"");
  if (!resource_version.empty()) json.append(R"(,"resourceVersion":")").append(resource_version).append("\"");
  json.append(R"(},"spec":{"holderIdentity":")").append(name);
  json.append(R"(","leaseDurationSeconds":40,"renewTime":")").append(base::micro_time_now()).append("\"}}");
  return json;
}

std::string pod_json(std::string_view name) {
  std::string json = R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")";
  json.append(name).append(R"(","labels":{"app":"kapi-bench-mixed"}},)");
  json.append(R"("spec":{"containers":[{"name":"app","image":"registry.k8s.io/pause:3.10"}]}})");
  return json;
}

constexpr std::string_view kPodStatusPatch =
    R"({"status":{"phase":"Running","podIP":"10.0.0.7","conditions":[{"type":"Ready","status":"True"}]}})";

std::string leases_path() { return "/apis/coordination.k8s.io/v1/namespaces/" + std::string(kLeaseNamespace) + "/leases"; }

std::string pods_path(std::string_view namespace_name) {
  return "/api/v1/namespaces/" + std::string(namespace_name) + "/pods";
}

asio::awaitable<void> sleep_for(asio::any_io_executor executor, Clock::duration duration) {
  asio::steady_timer timer(executor, duration);
  co_await timer.async_wait(asio::use_awaitable);
}

// Each node's Lease and the resourceVersion its kubelet last wrote.
struct NodeLeases {
  std::string prefix;
  std::vector<std::string> resource_versions;
  std::string name(std::size_t node) const { return prefix + std::to_string(node); }
};

// Creates the nodes' Leases (kept from an earlier run: read back) and learns their resourceVersions.
asio::awaitable<LoadResult> create_leases(asio::any_io_executor executor, ServerAddress server,
                                          std::shared_ptr<NodeLeases> leases) {
  auto pool = std::make_shared<ConnectionPool>(executor, server, 32);
  const std::string collection = leases_path();
  Operation create = [pool, leases, collection](std::size_t slot, std::uint64_t node) -> asio::awaitable<Outcome> {
    const std::string body = lease_json(leases->name(node), "");
    std::string answer;
    HttpRequest request{.method = "POST", .target = collection, .body = body};
    Outcome outcome = co_await pool->send(slot, request, &answer);
    if (outcome.status == 409) {
      const std::string target = collection + "/" + leases->name(node);
      HttpRequest read{.target = target};
      outcome = co_await pool->send(slot, read, &answer);
    }
    leases->resource_versions[node] = resource_version_of(answer);
    co_return outcome;
  };
  LoadOptions setup{.mode = LoadMode::closed,
                    .concurrency = 32,
                    .warmup = std::chrono::milliseconds(0),
                    .duration = std::chrono::hours(1),
                    .operation_limit = leases->resource_versions.size()};
  co_return co_await run_load(executor, setup, std::move(create));
}

// One renewal: a PUT carrying the last resourceVersion. A conflict (another writer, or a lost answer) is a failure;
// the Lease is read again so the node's next renewal can succeed.
Operation renew_leases(std::shared_ptr<ConnectionPool> pool, std::shared_ptr<NodeLeases> leases) {
  return [pool, leases](std::size_t slot, std::uint64_t sequence) -> asio::awaitable<Outcome> {
    const std::size_t node = sequence % leases->resource_versions.size();
    const std::string target = leases_path() + "/" + leases->name(node);
    const std::string body = lease_json(leases->name(node), leases->resource_versions[node]);
    std::string answer;
    HttpRequest request{.method = "PUT", .target = target, .body = body};
    const Outcome outcome = co_await pool->send(slot, request, &answer);
    if (outcome.status == 409) {
      HttpRequest read{.target = target};
      (void)co_await pool->send(slot, read, &answer);
    }
    if (auto version = resource_version_of(answer); !version.empty()) leases->resource_versions[node] = version;
    co_return outcome;
  };
}

enum class PodStep { create, status, remove };

Operation pod_step(std::shared_ptr<ConnectionPool> pool, std::string collection, std::string prefix, PodStep step) {
  return [pool, collection, prefix, step](std::size_t slot, std::uint64_t sequence) -> asio::awaitable<Outcome> {
    const std::string name = prefix + std::to_string(sequence);
    if (step == PodStep::create) {
      const std::string body = pod_json(name);
      HttpRequest request{.method = "POST", .target = collection, .body = body};
      co_return co_await pool->send(slot, request);
    }
    if (step == PodStep::status) {
      const std::string target = collection + "/" + name + "/status";
      HttpRequest request{.method = "PATCH", .target = target, .body = kPodStatusPatch,
                          .content_type = "application/merge-patch+json"};
      co_return co_await pool->send(slot, request);
    }
    const std::string target = collection + "/" + name;
    HttpRequest request{.method = "DELETE", .target = target};
    co_return co_await pool->send(slot, request);
  };
}

// An informer: LIST every pod, then WATCH from the list's revision until the run closes the connection.
asio::awaitable<void> informer(std::shared_ptr<HttpConnection> connection, std::shared_ptr<InformerFigures> figures) {
  try {
    HttpRequest list{.target = "/api/v1/pods?resourceVersion=0"};
    auto listed = co_await connection->send(list, BodyHandling::keep);
    if (listed.status != 200) co_return;
    const std::string target = "/api/v1/pods?watch=1&allowWatchBookmarks=true&timeoutSeconds=3600&resourceVersion=" +
                               resource_version_of(listed.body);
    bool established = false;
    auto count_events = [&](std::string_view piece) {
      if (!established) {
        established = true;
        ++figures->established;
      }
      for (char c : piece) figures->events += c == '\n';
    };
    HttpRequest watch{.target = target};
    co_await connection->send_streaming(watch, count_events);
  } catch (const std::exception&) {
    // closed by the run at its end
  }
}

// A load run started `delay` from now; its result lands in `into`, and `pending` counts it down when done.
asio::awaitable<void> delayed_load(asio::any_io_executor executor, Clock::duration delay, LoadOptions load,
                                   Operation operation, ProgressCallback progress, std::shared_ptr<LoadResult> into,
                                   std::shared_ptr<int> pending) {
  if (delay > Clock::duration::zero()) co_await sleep_for(executor, delay);
  *into = co_await run_load(executor, load, std::move(operation), std::move(progress));
  --*pending;
}

}  // namespace

asio::awaitable<ScenarioResult> run_mixed_scenario(asio::any_io_executor executor, const ScenarioOptions& options,
                                                   ProgressCallback progress) {
  if (options.nodes == 0 || options.pod_changes_per_second <= 0)
    throw std::invalid_argument("mixed needs --nodes and --pod-changes-per-second above 0");
  const auto server = server_address(options);
  {
    HttpConnection setup(executor, server);
    co_await ensure_namespace(setup, options.namespace_name);
    co_await ensure_default_service_account(setup, options.namespace_name);
    co_await ensure_namespace(setup, kLeaseNamespace);
  }
  auto leases = std::make_shared<NodeLeases>();
  leases->prefix = "kapi-bench-node-";
  leases->resource_versions.resize(options.nodes);
  const LoadResult created = co_await create_leases(executor, server, leases);
  if (created.failures != 0) throw std::runtime_error("creating the nodes' leases failed: " + created.first_error);

  auto informer_figures = std::make_shared<InformerFigures>();
  informer_figures->informers = options.informers;
  std::vector<std::shared_ptr<HttpConnection>> informer_connections;
  for (std::size_t i = 0; i < options.informers; ++i) {
    informer_connections.push_back(std::make_shared<HttpConnection>(executor, server));
    asio::co_spawn(executor, informer(informer_connections.back(), informer_figures), asio::detached);
  }

  // Four open-loop generators at once, each with its own connections.
  const auto open_loop = [&options](double rate) {
    LoadOptions load = options.load;
    load.mode = LoadMode::open;
    load.rate = rate;
    return load;
  };
  struct Generator {
    std::string name;
    Clock::duration delay;
    LoadOptions load;
    Operation operation;
  };
  const std::string pods = pods_path(options.namespace_name);
  const std::string pod_prefix = "mixed-" + std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(
                                                                std::chrono::system_clock::now().time_since_epoch())
                                                                    .count() %
                                                            100'000'000) + "-";
  const double per_step = options.pod_changes_per_second / 3;
  auto pool = [&](std::size_t slots) { return std::make_shared<ConnectionPool>(executor, server, slots); };
  std::vector<Generator> generators{
      {"lease-renew", {}, open_loop(static_cast<double>(options.nodes) / kRenewIntervalSeconds),
       renew_leases(pool(options.load.concurrency), leases)},
      {"pod-create", {}, open_loop(per_step), pod_step(pool(options.load.concurrency), pods, pod_prefix, PodStep::create)},
      {"pod-status", kPodStepGap, open_loop(per_step),
       pod_step(pool(options.load.concurrency), pods, pod_prefix, PodStep::status)},
      {"pod-delete", 2 * kPodStepGap, open_loop(per_step),
       pod_step(pool(options.load.concurrency), pods, pod_prefix, PodStep::remove)}};

  ScenarioResult result{.scenario = "mixed", .target = "kapi"};
  ServerSampler sampler(executor, options.server_pid);
  sampler.start();
  auto pending = std::make_shared<int>(static_cast<int>(generators.size()));
  std::vector<std::shared_ptr<LoadResult>> loads;
  for (auto& generator : generators) {
    loads.push_back(std::make_shared<LoadResult>());
    asio::co_spawn(executor,
                   delayed_load(executor, generator.delay, generator.load, std::move(generator.operation),
                                loads.size() == 1 ? progress : ProgressCallback{}, loads.back(), pending),
                   asio::detached);
  }
  while (*pending > 0) co_await sleep_for(executor, std::chrono::milliseconds(20));
  if (sampler.enabled()) result.server = sampler.stop();

  for (auto& connection : informer_connections) connection->close();
  co_await sleep_for(executor, std::chrono::milliseconds(100));  // lets the informers see their connections close

  for (std::size_t i = 0; i < generators.size(); ++i) {
    merge_into(result.load, *loads[i]);
    result.parts.push_back({generators[i].name, std::move(*loads[i])});
  }
  result.informers = *informer_figures;
  char parameters[200];
  std::snprintf(parameters, sizeof parameters, "nodes=%zu (lease every 10 s) pod-changes=%.0f/s informers=%zu "
                "max-inflight=%zu per kind", options.nodes, options.pod_changes_per_second, options.informers,
                options.load.concurrency);
  result.parameters = parameters;
  co_return result;
}

}  // namespace kapi::bench
