// The embedded SQLite store as a conformance-suite backend: a fresh data dir per test.
#include "storage/embedded/store.h"
#include "tests/support/temp_dir.h"
#include "tests/unit/storage/backends.h"

namespace kapi::storage::conformance {
namespace {

class EmbeddedBackend final : public TestBackend {
 public:
  EmbeddedBackend() {
    embedded::Options options;
    options.data_dir = dir_.path() / "data";
    store_ = embedded::Store::open(std::move(options));
  }
  Interface& store() override { return *store_; }

 private:
  test_support::TempDir dir_{"kapi-embedded"};
  std::unique_ptr<embedded::Store> store_;
};

}  // namespace

BackendFactory embedded_backend() {
  return {"embedded", [](asio::any_io_executor) { return std::make_unique<EmbeddedBackend>(); }};
}

}  // namespace kapi::storage::conformance
