// The Cacher over the embedded store as a conformance-suite backend: the whole suite runs through the watch
// cache, with one Cacher over the key root (so every key a test writes is the Cacher's resource).
#include "storage/cacher/cacher.h"
#include "storage/embedded/store.h"
#include "tests/support/temp_dir.h"
#include "tests/unit/storage/backends.h"

#include <chrono>
#include <thread>

namespace kapi::storage::conformance {
namespace {

class CacherBackend final : public TestBackend {
 public:
  explicit CacherBackend(asio::any_io_executor executor) {
    embedded::Options store_options;
    store_options.data_dir = dir_.path() / "data";
    store_ = embedded::Store::open(std::move(store_options));
    cacher::CacherOptions options;
    options.resource_prefix = key_root() + "/";
    // The suite asks for revisions that never come ("too large"); keep those waits short.
    options.fresh_wait_timeout = std::chrono::milliseconds(300);
    cacher_ = std::make_unique<cacher::Cacher>(*store_, std::move(executor), std::move(options));
    // The suite's first write must find the cache listed: the cache's history starts at its list, and a watch from
    // before that is "too old" (410), as kube's cacher answers it. (A loaded machine lists after the first writes.)
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!cacher_->ready() && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  Interface& store() override { return *cacher_; }

 private:
  test_support::TempDir dir_{"kapi-cacher"};
  std::unique_ptr<embedded::Store> store_;
  std::unique_ptr<cacher::Cacher> cacher_;  // destroyed first: it stops before the store goes
};

}  // namespace

BackendFactory cacher_backend() {
  return {"cacher", [](asio::any_io_executor executor) { return std::make_unique<CacherBackend>(executor); }};
}

}  // namespace kapi::storage::conformance
