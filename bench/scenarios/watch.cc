// watch: W watchers on one namespace's ConfigMaps while a writer creates E objects per second. Each object
// carries its sequence number and send time in a data key named for this run, so every watcher measures each
// event's delivery latency and notices events that never came or came twice.
#include "bench/load/watch_ledger.h"
#include "bench/scenarios/kube_api.h"
#include "bench/scenarios/scenario.h"

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/steady_timer.hpp>
#include <asio/use_awaitable.hpp>

#include <boost/json.hpp>

#include <chrono>
#include <memory>
#include <stdexcept>

namespace kapi::bench {
namespace {

using Clock = std::chrono::steady_clock;

std::int64_t now_nanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count();
}

// What all watchers share; one thread, no locking.
struct WatchRun {
  std::string key;  // the data key this run's writer stamps its objects with
  std::int64_t measure_from_nanos = 0;
  std::size_t established = 0;
  std::size_t ended = 0;
  std::vector<std::uint8_t> acknowledged;  // by sequence: the server answered 201 to its create
  WatchFigures figures;
};

asio::awaitable<void> watch_loop(std::shared_ptr<WatchRun> run, std::shared_ptr<WatchLedger> ledger,
                                 std::shared_ptr<HttpTransport> connection, std::string target) {
  bool established = false;
  auto on_first_delivery = [&run](const StampedEvent& event) {
    ++run->figures.deliveries;
    if (event.sent_nanos >= run->measure_from_nanos) {
      const std::int64_t now = now_nanos();
      const auto micros = static_cast<std::uint64_t>(std::max<std::int64_t>(0, now - event.sent_nanos) / 1000);
      run->figures.delivery_latency.record_micros(micros);
      run->figures.delivery_latency_over_time.record_micros(static_cast<double>(now - run->measure_from_nanos) / 1e9,
                                                            micros);
    }
  };
  auto sink = [&](std::string_view piece) {
    if (!established) {
      established = true;
      ++run->established;
    }
    ledger->feed(piece, on_first_delivery);
  };
  try {
    HttpRequest request{.target = target};
    co_await connection->send_streaming(request, sink);
  } catch (const std::exception&) {
    // closed by us at the end, or by the server
  }
  ++run->ended;
}

asio::awaitable<std::string> current_resource_version(HttpConnection& connection, const std::string& collection) {
  const std::string target = collection + "?limit=1";
  HttpRequest request{.target = target};
  auto response = co_await connection.send(request, BodyHandling::keep);
  if (response.status != 200) throw std::runtime_error("LIST " + collection + ": HTTP " + std::to_string(response.status));
  auto list = boost::json::parse(response.body).as_object();
  co_return std::string(list.at("metadata").as_object().at("resourceVersion").as_string());
}

asio::awaitable<void> sleep_for(asio::any_io_executor executor, std::chrono::milliseconds duration) {
  asio::steady_timer timer(executor, duration);
  co_await timer.async_wait(asio::use_awaitable);
}

}  // namespace

asio::awaitable<ScenarioResult> run_watch_scenario(asio::any_io_executor executor, const ScenarioOptions& options,
                                                   ProgressCallback progress) {
  const auto server = server_address(options);
  const std::string collection = configmaps_path(options.namespace_name);
  const std::string run_name = std::to_string(now_nanos() % 1'000'000'000);
  auto run = std::make_shared<WatchRun>();
  run->key = "kapi-bench-" + run_name;
  run->figures.watchers = options.watchers;

  std::string resource_version;
  {
    HttpConnection setup(executor, server);
    co_await ensure_namespace(setup, options.namespace_name);
    resource_version = co_await current_resource_version(setup, collection);
  }
  const auto memory_before = read_process(options.server_pid);

  // Watch from the list's resourceVersion: only this run's events, no replay of older objects.
  const std::string target = collection + "?watch=1&allowWatchBookmarks=false&timeoutSeconds=3600&resourceVersion=" +
                             resource_version;
  // Over HTTP/1.1 one connection per watcher; over HTTP/2 the watchers share connections, as a client-go
  // process's informers do, up to kube's 1000 streams each.
  constexpr std::size_t kStreamsPerConnection = 1000;
  std::vector<std::shared_ptr<HttpTransport>> connections;
  std::vector<std::shared_ptr<WatchLedger>> watchers;
  for (std::size_t i = 0; i < options.watchers; ++i) {
    if (!server.http2 || i % kStreamsPerConnection == 0) connections.push_back(connect_to(executor, server));
    watchers.push_back(std::make_shared<WatchLedger>(run->key));
    asio::co_spawn(executor, watch_loop(run, watchers.back(), connections.back(), target), asio::detached);
    if (i % 200 == 199) co_await sleep_for(executor, std::chrono::milliseconds(5));  // spares the listen backlog
  }
  const auto establish_deadline = Clock::now() + std::chrono::seconds(10) + std::chrono::milliseconds(options.watchers);
  while (run->established + run->ended < options.watchers && Clock::now() < establish_deadline)
    co_await sleep_for(executor, std::chrono::milliseconds(20));
  run->figures.established = run->established;
  co_await sleep_for(executor, std::chrono::milliseconds(500));  // lets the server settle before measuring it
  const auto memory_idle = read_process(options.server_pid);
  if (memory_before && memory_idle && run->established > 0)
    run->figures.server_bytes_per_watcher =
        (static_cast<std::int64_t>(memory_idle->rss_bytes) - static_cast<std::int64_t>(memory_before->rss_bytes)) /
        static_cast<std::int64_t>(run->established);

  // The writer: open loop at the event rate, so a slow server shows as latency, not as fewer events.
  const auto write_server = options.write_server.empty() ? server : parse_server_url(options.write_server);
  auto pool = std::make_shared<ConnectionPool>(executor, write_server, 16);
  const std::size_t bytes = options.object_bytes;
  Operation write = [pool, run, collection, bytes, run_name](std::size_t slot,
                                                                  std::uint64_t sequence) -> asio::awaitable<Outcome> {
    const std::string stamp = std::to_string(sequence) + "," + std::to_string(now_nanos());
    const std::string body = configmap_json("w" + run_name + "-" + std::to_string(sequence), bytes, run->key, stamp);
    HttpRequest request{.method = "POST", .target = collection, .body = body};
    auto outcome = co_await pool->send(slot, request);
    if (outcome.status == 201) {
      if (run->acknowledged.size() <= sequence) run->acknowledged.resize(sequence + 1024, 0);
      run->acknowledged[sequence] = 1;
    }
    co_return outcome;
  };
  LoadOptions writer = options.load;
  writer.mode = LoadMode::open;
  writer.rate = options.events_per_second;
  writer.concurrency = 16;
  run->measure_from_nanos = now_nanos() + std::chrono::duration_cast<std::chrono::nanoseconds>(writer.warmup).count();

  ScenarioResult result{.scenario = "watch", .target = "kapi"};
  ServerSampler sampler(executor, options.server_pid);
  sampler.start();
  result.load = co_await run_load(executor, writer, std::move(write), std::move(progress));

  // Every acknowledged write should reach every watcher; give the stragglers a few seconds.
  std::uint64_t acknowledged = 0;
  for (auto flag : run->acknowledged) acknowledged += flag;
  const auto drain_deadline = Clock::now() + std::chrono::seconds(5);
  while (Clock::now() < drain_deadline) {
    std::uint64_t delivered = 0;
    for (const auto& watcher : watchers) delivered += std::min(watcher->delivered(), acknowledged);
    if (delivered >= acknowledged * run->established) break;
    co_await sleep_for(executor, std::chrono::milliseconds(50));
  }
  if (sampler.enabled()) result.server = sampler.stop();
  run->figures.events_written = acknowledged;
  for (const auto& watcher : watchers) {
    run->figures.missing += watcher->missing(run->acknowledged);
    run->figures.duplicates += watcher->duplicates();
  }
  for (auto& connection : connections) connection->close();
  const auto close_deadline = Clock::now() + std::chrono::seconds(5);
  while (run->ended < options.watchers && Clock::now() < close_deadline)
    co_await sleep_for(executor, std::chrono::milliseconds(20));

  result.watch = run->figures;
  result.parameters = "watchers=" + std::to_string(options.watchers) + " events=" +
                      std::to_string(static_cast<long>(options.events_per_second)) + "/s object=" +
                      std::to_string(options.object_bytes) + "B";
  co_return result;
}

}  // namespace kapi::bench
