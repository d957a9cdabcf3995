// The write-limit baseline: what kapi's own etcd client does for a create (one Txn: "key absent" → put), with
// nothing above it, at the same concurrency and value size as the `create` scenario.
#include "bench/scenarios/scenario.h"
#include "storage/etcd3/store.h"

#include <chrono>
#include <memory>

namespace kapi::bench {

asio::awaitable<ScenarioResult> run_etcd_txn_scenario(asio::any_io_executor executor, const ScenarioOptions& options,
                                                      ProgressCallback progress) {
  storage::etcd3::StoreOptions store_options;
  store_options.client.endpoints = {options.etcd};
  store_options.compaction_interval = std::chrono::nanoseconds(0);
  auto store = std::make_shared<storage::etcd3::Store>(executor, store_options);

  // Keys unique to this run, so runs against an etcd that outlives them never collide.
  const std::string prefix = "/registry/kapi-bench/" +
                             std::to_string(std::chrono::system_clock::now().time_since_epoch().count()) + "/";
  const auto value = std::make_shared<const std::string>(options.object_bytes, 'x');
  Operation put = [store, prefix, value](std::size_t, std::uint64_t sequence) -> asio::awaitable<Outcome> {
    std::string key = prefix + std::to_string(sequence);
    const std::size_t sent = key.size() + value->size();
    co_await store->create(std::move(key), *value, storage::WriteOptions{});
    co_return Outcome{.status = 200, .bytes_received = 0, .bytes_sent = sent};
  };

  ScenarioResult result{.scenario = "etcd-txn", .target = "etcd"};
  result.parameters = (options.load.mode == LoadMode::open
                           ? "open-loop rate=" + std::to_string(static_cast<long>(options.load.rate)) + "/s"
                           : "concurrency=" + std::to_string(options.load.concurrency)) +
                      " value=" + std::to_string(options.object_bytes) + "B";
  ServerSampler sampler(executor, options.server_pid);
  sampler.start();
  result.load = co_await run_load(executor, options.load, std::move(put), std::move(progress));
  if (sampler.enabled()) result.server = sampler.stop();
  co_return result;
}

}  // namespace kapi::bench
