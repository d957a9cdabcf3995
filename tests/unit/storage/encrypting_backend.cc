// Encryption at rest over the embedded store as a conformance-suite backend: every value is kept as kube's
// "k8s:enc:aesgcm:v1:<key>:" ciphertext, authenticated with its key, so the whole suite checks that reads, writes,
// preconditions, predicates and watches all see plaintext while the store holds ciphertext.
#include "storage/embedded/store.h"
#include "storage/transforming_storage.h"
#include "tests/support/temp_dir.h"
#include "tests/unit/storage/backends.h"

namespace kapi::storage::conformance {
namespace {

class EncryptingBackend final : public TestBackend {
 public:
  EncryptingBackend() {
    embedded::Options options;
    options.data_dir = dir_.path() / "data";
    store_ = embedded::Store::open(std::move(options));
    auto keys = value::prefix_transformers({{"key1:", value::aes_gcm_transformer(std::string(32, 'k'))}});
    encrypting_ = std::make_unique<TransformingStorage>(
        *store_, value::prefix_transformers({{"k8s:enc:aesgcm:v1:", std::move(keys)}}));
  }
  Interface& store() override { return *encrypting_; }

 private:
  test_support::TempDir dir_{"kapi-encrypting"};
  std::unique_ptr<embedded::Store> store_;
  std::unique_ptr<TransformingStorage> encrypting_;
};

}  // namespace

BackendFactory encrypting_backend() {
  return {"encrypting", [](asio::any_io_executor) { return std::make_unique<EncryptingBackend>(); }};
}

}  // namespace kapi::storage::conformance
