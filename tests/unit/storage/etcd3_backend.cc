// The etcd3 store as a conformance-suite backend. One real etcd serves the whole test binary (one per test would
// double the suite's time); each test gets its own store and its own key root, so tests never see each other's
// keys, only a shared revision counter, which the contract allows.
#include "storage/etcd3/store.h"
#include "tests/support/etcd_process.h"
#include "tests/unit/storage/backends.h"

#include <atomic>

namespace kapi::storage::conformance {
namespace {

using namespace std::chrono_literals;

test_support::EtcdProcess& shared_etcd() {
  static test_support::EtcdProcess etcd;  // started by the first etcd3 test, killed at exit
  return etcd;
}

class Etcd3Backend final : public TestBackend {
 public:
  Etcd3Backend(asio::any_io_executor executor, std::string root) : root_(std::move(root)) {
    etcd3::StoreOptions options;
    options.client.endpoints = {shared_etcd().endpoint()};
    options.client.request_timeout = 5s;
    options.compaction_interval = 0s;  // tests compact explicitly
    store_ = std::make_unique<etcd3::Store>(std::move(executor), std::move(options));
  }
  Interface& store() override { return *store_; }
  std::string key_root() const override { return root_; }

 private:
  std::string root_;
  std::unique_ptr<etcd3::Store> store_;
};

}  // namespace

BackendFactory etcd3_backend() {
  return {"etcd3", [](asio::any_io_executor executor) {
            static std::atomic<int> tests{0};
            return std::make_unique<Etcd3Backend>(std::move(executor), "/registry/t" + std::to_string(++tests));
          }};
}

}  // namespace kapi::storage::conformance
