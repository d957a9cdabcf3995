#pragma once
// Transformations of stored values on their way to and from the backend: k8s.io/apiserver/pkg/storage/value.
// A Transformer turns an object's bytes into what the backend keeps (encrypted, or in another version) and back;
// the key it is stored under is the context (AES-GCM authenticates it, so a value cannot be moved to another key).
//
// Reads say whether the value is stale: written with a transformer that is no longer the first of its list (an old
// key, a provider rotated away from). The storage layer above rewrites a stale object on an update even when the
// object did not change, which is how `kubectl get secrets -A -o json | kubectl replace -f -` re-encrypts.
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace kapi::storage::value {

// A value that cannot be transformed: corrupt, encrypted with a key no longer configured, or not encrypted where
// only encrypted values are read. The storage layer reports it as kube's "unable to transform key" error.
class TransformError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct FromStorage {
  std::string value;
  bool stale = false;
};

class Transformer {
 public:
  virtual ~Transformer() = default;
  virtual std::string to_storage(std::string_view value, std::string_view key) const = 0;
  // Throws TransformError.
  virtual FromStorage from_storage(std::string_view stored, std::string_view key) const = 0;
};

// The transformer each group resource's values are stored through (kube's EncryptionConfiguration, resolved); null
// for a resource stored as it is. An empty function: nothing is transformed.
using ResourceTransformers =
    std::function<std::shared_ptr<const Transformer>(std::string_view group, std::string_view resource)>;

// identity.NewEncryptCheckTransformer: values stored as they are; a value carrying the "k8s:enc:" prefix reserved
// for encrypted data is refused, so that a list with identity first still finds the provider that reads it.
std::shared_ptr<const Transformer> identity_transformer();

// value.PrefixTransformers: writes with the first transformer, its prefix before the value; reads with the first
// whose prefix the value starts with and that succeeds (providers of one kind share a prefix). A read by any but
// the first is stale. `no_match` is the error when none reads the value.
struct PrefixTransformer {
  std::string prefix;
  std::shared_ptr<const Transformer> transformer;
};
std::shared_ptr<const Transformer> prefix_transformers(std::vector<PrefixTransformer> transformers,
                                                       std::string no_match = "no matching prefix found");

// `outer` applied to values, then `inner` to what it makes (kube's codec, then its encryption transformer); reads
// undo them in reverse, stale when either says so. Either may be null.
std::shared_ptr<const Transformer> compose(std::shared_ptr<const Transformer> outer,
                                          std::shared_ptr<const Transformer> inner);

// aes.NewCBCTransformer, aes.NewGCMTransformer and secretbox.NewSecretboxTransformer over one key; the key's size
// must suit the cipher (16, 24 or 32 bytes for AES; 32 for secretbox).
std::shared_ptr<const Transformer> aes_cbc_transformer(std::string key);
std::shared_ptr<const Transformer> aes_gcm_transformer(std::string key);
std::shared_ptr<const Transformer> secretbox_transformer(std::string key);

}  // namespace kapi::storage::value
