// Fuzzes the list continue token as kube-apiserver decodes a client's `continue` parameter
// (k8s.io/apiserver/pkg/storage/continue.go's DecodeContinue, storage/continue_token.h): unpadded URL-safe base64
// of {"v":"meta.k8s.io/v1","rv":<revision>,"start":"<key>"}, read as Go's json.Unmarshal reads it, and the start
// key refused unless path.Clean leaves it as it is, so that no token reaches above the list's prefix.
//
// The first input byte chooses what the rest is: even, the token as a client sends it; odd, the token's JSON, which
// is encoded here so that mutations reach the JSON decoding and the key checks instead of dying in base64.
//
// InvalidContinueToken is the documented refusal; anything else escaping, a crash, a sanitizer report or a timeout
// is a finding. So is a decoded position outside the prefix, and one that does not survive EncodeContinue and
// DecodeContinue again unchanged (what a server does with the next page's token).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "base/base64.h"
#include "storage/continue_token.h"
#include "tests/fuzz/finding.h"

namespace {

using kapi::fuzz::finding;

constexpr std::string_view kPrefix = "/registry/pods/";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  const bool json = (data[0] & 1) != 0;
  const std::string token = json ? kapi::base::base64_encode(rest, kapi::base::Base64::kRawUrl) : std::string(rest);

  // Go documents path.Clean's result as the shortest equivalent path, so cleaning it again changes nothing.
  const std::string cleaned = kapi::storage::clean_path(rest);
  if (kapi::storage::clean_path(cleaned) != cleaned) finding("clean_path is not idempotent", rest);

  kapi::storage::ContinuePosition position;
  try {
    position = kapi::storage::decode_continue(token, kPrefix);
  } catch (const kapi::storage::InvalidContinueToken&) {
    return 0;
  }
  if (position.revision == 0) finding("revision 0 accepted", position.start_key);
  if (!position.start_key.starts_with(kPrefix)) finding("start key outside the prefix", position.start_key);
  const std::string relative = "/" + position.start_key.substr(kPrefix.size());
  if (kapi::storage::clean_path(relative) != relative) finding("start key not in path.Clean form", position.start_key);

  // A start of "/" decodes to the prefix itself, whose token (an empty start) kube and kapi alike refuse.
  if (position.start_key.size() == kPrefix.size()) return 0;
  const std::string next = kapi::storage::encode_continue(position.start_key, kPrefix, position.revision);
  kapi::storage::ContinuePosition again;
  try {
    again = kapi::storage::decode_continue(next, kPrefix);
  } catch (const kapi::storage::InvalidContinueToken& e) {
    finding(std::string("re-encoded token refused: ") + e.what(), position.start_key);
  }
  if (again.start_key != position.start_key || again.revision != position.revision)
    finding("re-encoded token decodes to another position", position.start_key);
  return 0;
}
