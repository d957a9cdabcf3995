#pragma once
// --encryption-provider-config: kube's EncryptionConfiguration (apiserver.config.k8s.io/v1), as
// k8s.io/apiserver/pkg/server/options/encryptionconfig loads it. Each entry of `resources` names group resources
// ("secrets", "deployments.apps", "*.apps", "*." for every core resource, "*.*" for all) and the providers their
// values go through, the first writing and every one reading:
//
//   identity {}                        values as they are
//   aescbc / aesgcm: {keys: [...]}     "k8s:enc:aescbc:v1:<key name>:" + IV + AES ciphertext (16, 24 or 32-byte keys)
//   secretbox: {keys: [...]}           "k8s:enc:secretbox:v1:<key name>:" + nonce + XSalsa20-Poly1305 (32 bytes)
//
// Keys are base64 in the file. A resource's transformer is its own entry's, else its group's ("*.group"), else
// "*.*"'s; a resource no entry names is stored as it is. kms providers are refused: kapi has no KMS plugin client.
#include "storage/value/transformer.h"

#include <filesystem>
#include <stdexcept>
#include <string_view>

namespace kapi::encryptionconfig {

// A file kube-apiserver would refuse to start with; what() is its message.
class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The file's transformers by group resource. Throws ConfigError.
storage::value::ResourceTransformers load_encryption_config(const std::filesystem::path& file);
// The same from the file's text (YAML or JSON); `file` names it in errors.
storage::value::ResourceTransformers parse_encryption_config(std::string_view text, std::string_view file);

}  // namespace kapi::encryptionconfig
