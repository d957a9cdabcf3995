#pragma once
// The storage the server runs on: the embedded store in --data-dir by default, etcd v3 with --etcd-servers.
// It also keeps the "etcd" health check current (kube-apiserver's name for its storage check, kept so tools
// that probe /readyz/etcd work against either backend).
#include "base/log.h"
#include "server/healthz/healthz.h"
#include "server/options.h"
#include "storage/interface.h"

#include <asio/any_io_executor.hpp>

#include <atomic>
#include <memory>
#include <string>

namespace kapi::server {

class StorageBackend {
 public:
  // Opens the backend the options name. Throws std::runtime_error (with the backend's reason) when it cannot.
  static std::unique_ptr<StorageBackend> open(const Options& options, asio::any_io_executor executor,
                                              base::Logger& logger);
  ~StorageBackend();

  storage::Interface& store() { return *store_; }
  std::string_view description() const { return description_; }

  // Probes the backend every `interval` on `executor` until stop(); the check reports the last outcome.
  void start_health_probe(std::chrono::milliseconds interval);
  void stop() { stopped_->store(true); }
  healthz::Check health_check() const;

 private:
  StorageBackend() = default;
  asio::awaitable<void> probe_loop(std::chrono::milliseconds interval);

  asio::any_io_executor executor_;
  base::Logger* logger_ = nullptr;
  std::unique_ptr<storage::Interface> store_;
  std::function<asio::awaitable<void>()> probe_;
  std::string description_;
  std::shared_ptr<std::atomic<bool>> stopped_ = std::make_shared<std::atomic<bool>>(false);
  std::shared_ptr<std::atomic<bool>> healthy_ = std::make_shared<std::atomic<bool>>(false);
};

}  // namespace kapi::server
