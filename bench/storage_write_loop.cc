// storage-write-loop: raw write throughput of a storage backend, below the HTTP layer.
//   storage-write-loop --backend=embedded --data-dir=/tmp/x [--concurrency=64] [--seconds=10] [--value-bytes=1024]
//   storage-write-loop --backend=etcd --etcd-servers=http://127.0.0.1:2379 [...]
// Each of `concurrency` coroutines creates fresh keys back to back; prints creates/s and latency percentiles.
#include "storage/embedded/store.h"
#include "storage/etcd3/store.h"

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/io_context.hpp>
#include <asio/use_awaitable.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

std::map<std::string, std::string> parse_flags(int argc, char** argv) {
  std::map<std::string, std::string> flags;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (!arg.starts_with("--")) continue;
    auto eq = arg.find('=');
    flags[arg.substr(2, eq - 2)] = eq == std::string::npos ? "true" : arg.substr(eq + 1);
  }
  return flags;
}

struct Results {
  std::vector<double> latencies_ms;
  std::size_t errors = 0;
};

asio::awaitable<void> writer(kapi::storage::Interface& store, std::string prefix, std::string value,
                             Clock::time_point end, Results& results) {
  for (long n = 0; Clock::now() < end; ++n) {
    auto start = Clock::now();
    try {
      std::string key = prefix + std::to_string(n);
      kapi::storage::WriteOptions options;
      co_await store.create(std::move(key), value, options);
      results.latencies_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
    } catch (const std::exception&) {
      ++results.errors;
    }
  }
}

double percentile(std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  auto index = static_cast<std::size_t>(p * static_cast<double>(sorted.size() - 1));
  return sorted[index];
}

}  // namespace

int main(int argc, char** argv) {
  auto flags = parse_flags(argc, argv);
  std::string backend = flags.count("backend") ? flags["backend"] : "embedded";
  int concurrency = flags.count("concurrency") ? std::stoi(flags["concurrency"]) : 64;
  int seconds = flags.count("seconds") ? std::stoi(flags["seconds"]) : 10;
  std::size_t value_bytes = flags.count("value-bytes") ? std::stoul(flags["value-bytes"]) : 1024;

  asio::io_context io(1);
  std::unique_ptr<kapi::storage::Interface> store;
  if (backend == "embedded") {
    kapi::storage::embedded::Options options;
    options.data_dir = flags.count("data-dir") ? flags["data-dir"] : "storage-write-loop-data";
    store = kapi::storage::embedded::Store::open(options);
  } else if (backend == "etcd") {
    kapi::storage::etcd3::StoreOptions options;
    options.client.endpoints = {flags.count("etcd-servers") ? flags["etcd-servers"] : "http://127.0.0.1:2379"};
    options.compaction_interval = std::chrono::nanoseconds(0);
    store = std::make_unique<kapi::storage::etcd3::Store>(io.get_executor(), options);
  } else {
    std::fprintf(stderr, "unknown --backend=%s (embedded|etcd)\n", backend.c_str());
    return 2;
  }

  std::string value(value_bytes, 'x');
  Results results;
  auto begin = Clock::now();
  auto end = begin + std::chrono::seconds(seconds);
  // Keys unique to this run, so runs against a store that outlives them never collide.
  const std::string run = std::to_string(std::chrono::system_clock::now().time_since_epoch().count());
  for (int i = 0; i < concurrency; ++i)
    asio::co_spawn(io, writer(*store, "/registry/bench/" + run + "/w" + std::to_string(i) + "-", value, end, results),
                   asio::detached);
  io.run();
  double elapsed = std::chrono::duration<double>(Clock::now() - begin).count();

  std::sort(results.latencies_ms.begin(), results.latencies_ms.end());
  std::printf("backend=%s concurrency=%d value_bytes=%zu seconds=%.1f\n", backend.c_str(), concurrency, value_bytes, elapsed);
  std::printf("creates=%zu errors=%zu throughput=%.0f/s p50=%.2fms p99=%.2fms max=%.2fms\n", results.latencies_ms.size(),
              results.errors, static_cast<double>(results.latencies_ms.size()) / elapsed,
              percentile(results.latencies_ms, 0.5), percentile(results.latencies_ms, 0.99),
              results.latencies_ms.empty() ? 0.0 : results.latencies_ms.back());
  return results.errors == 0 ? 0 : 1;
}
