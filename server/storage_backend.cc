#include "server/storage_backend.h"

#include "storage/embedded/store.h"
#include "storage/etcd3/store.h"

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/steady_timer.hpp>
#include <asio/use_awaitable.hpp>

namespace kapi::server {

std::unique_ptr<StorageBackend> StorageBackend::open(const Options& options, asio::any_io_executor executor,
                                                     base::Logger& logger) {
  std::unique_ptr<StorageBackend> backend(new StorageBackend());
  backend->executor_ = executor;
  backend->logger_ = &logger;
  if (options.etcd_servers.empty()) {
    storage::embedded::Options embedded;
    embedded.data_dir = options.data_dir;
    embedded.compaction_interval = std::chrono::duration_cast<std::chrono::seconds>(options.embedded_compaction_interval);
    auto store = storage::embedded::Store::open(std::move(embedded));
    storage::Interface* raw = store.get();
    backend->probe_ = [raw]() -> asio::awaitable<void> { co_await raw->current_revision(); };
    backend->store_ = std::move(store);
    backend->description_ = "embedded store in " + std::filesystem::absolute(options.data_dir).string();
  } else {
    storage::etcd3::StoreOptions etcd;
    etcd.client.endpoints = options.etcd_servers;
    etcd.client.ca_file = options.etcd_cafile.string();
    etcd.client.cert_file = options.etcd_certfile.string();
    etcd.client.key_file = options.etcd_keyfile.string();
    etcd.compaction_interval = options.etcd_compaction_interval;
    etcd.logger = &logger;
    auto store = std::make_unique<storage::etcd3::Store>(executor, std::move(etcd));
    storage::etcd3::Store* raw = store.get();
    backend->probe_ = [raw]() -> asio::awaitable<void> { co_await raw->check_health(); };
    backend->store_ = std::move(store);
    std::string servers;
    for (const auto& server : options.etcd_servers) servers += (servers.empty() ? "" : ",") + server;
    backend->description_ = "etcd at " + servers;
  }
  return backend;
}

StorageBackend::~StorageBackend() { stop(); }

void StorageBackend::start_health_probe(std::chrono::milliseconds interval) {
  asio::co_spawn(executor_, probe_loop(interval), asio::detached);
}

asio::awaitable<void> StorageBackend::probe_loop(std::chrono::milliseconds interval) {
  // Holds its own references to the flags: the loop may be resumed once more after the backend is gone.
  auto stopped = stopped_;
  auto healthy = healthy_;
  auto probe = probe_;
  auto* logger = logger_;
  asio::steady_timer timer(executor_);
  while (!stopped->load()) {
    bool ok = true;
    std::string reason;
    try {
      co_await probe();
    } catch (const std::exception& error) {
      ok = false;
      reason = error.what();
    }
    if (stopped->load()) break;
    if (ok != healthy->exchange(ok)) logger->info(ok ? "storage is reachable" : "storage probe failed: " + reason);
    timer.expires_after(interval);
    co_await timer.async_wait(asio::use_awaitable);
  }
}

healthz::Check StorageBackend::health_check() const {
  return {"etcd", [healthy = healthy_]() -> std::optional<std::string> {
            if (healthy->load()) return std::nullopt;
            return "storage is not reachable";
          }};
}

}  // namespace kapi::server
