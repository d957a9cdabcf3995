// The conversion layer over the embedded store as a conformance-suite backend: every value is stored in another
// "version" (prefixed) and served as written, so the whole suite checks that reads, writes, preconditions,
// predicates and watches all see served values while the store holds stored ones.
#include "storage/converting_storage.h"
#include "storage/embedded/store.h"
#include "tests/support/temp_dir.h"
#include "tests/unit/storage/backends.h"

namespace kapi::storage::conformance {
namespace {

constexpr std::string_view kStoredPrefix = "stored:";

class PrefixConversion final : public ObjectConversion {
 public:
  std::string to_storage(std::string_view served) const override { return std::string(kStoredPrefix) + std::string(served); }
  std::string from_storage(std::string_view stored) const override {
    if (!stored.starts_with(kStoredPrefix)) throw StorageError(ErrorCode::InvalidObj, "", "not in the storage version");
    return std::string(stored.substr(kStoredPrefix.size()));
  }
};

class ConvertingBackend final : public TestBackend {
 public:
  ConvertingBackend() {
    embedded::Options options;
    options.data_dir = dir_.path() / "data";
    store_ = embedded::Store::open(std::move(options));
    converting_ = std::make_unique<TransformingStorage>(*store_, conversion_transformer(std::make_shared<PrefixConversion>()));
  }
  Interface& store() override { return *converting_; }

 private:
  test_support::TempDir dir_{"kapi-converting"};
  std::unique_ptr<embedded::Store> store_;
  std::unique_ptr<TransformingStorage> converting_;
};

}  // namespace

BackendFactory converting_backend() {
  return {"converting", [](asio::any_io_executor) { return std::make_unique<ConvertingBackend>(); }};
}

}  // namespace kapi::storage::conformance
