#pragma once
// The list continue token, byte-for-byte the one of k8s.io/apiserver/pkg/storage/continue.go: unpadded
// URL-safe base64 of the JSON {"v":"meta.k8s.io/v1","rv":<revision>,"start":"<key relative to the prefix>"}.
// Clients treat it as opaque, but it crosses servers (a kube-apiserver's token works on kapi and back), so the
// encoding and the validations are kept identical.
#include "storage/interface.h"

#include <stdexcept>
#include <string>
#include <string_view>

namespace kapi::storage {

// A token that failed validation; what() is kube's message, e.g. "continue key is not valid: encoded start key
// empty (version meta.k8s.io/v1)". Backends wrap it as InvalidArgument "invalid continue token: <what>".
class InvalidContinueToken : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

struct ContinuePosition {
  std::string start_key;  // the full key to resume from (inclusive), i.e. key_prefix + the token's start
  Revision revision = 0;  // > 0: read at this revision; < 0: read at the latest revision
};

// `key` is the full key to resume at, usually the last returned key + '\0'. Throws std::invalid_argument when
// `key` does not start with `key_prefix` (or equals it).
std::string encode_continue(std::string_view key, std::string_view key_prefix, Revision revision);

// Throws InvalidContinueToken. `key_prefix` is the list prefix (ending in '/'); the token's start key is
// rejected unless it is already in path.Clean form, so a token cannot reach above the prefix.
ContinuePosition decode_continue(std::string_view token, std::string_view key_prefix);

// Go's path.Clean: the shortest path equivalent to `path` by purely lexical processing.
std::string clean_path(std::string_view path);

}  // namespace kapi::storage
