#include "storage/keys.h"

#include <charconv>
#include <limits>
#include <string_view>

namespace kapi::storage {

Revision parse_resource_version(const std::string& resource_version, const std::string& key) {
  if (resource_version.empty() || resource_version == "0") return 0;
  std::uint64_t value = 0;
  const char* begin = resource_version.data();
  const char* end = begin + resource_version.size();
  // Go's ParseUint takes no sign, which from_chars refuses too.
  auto [stop, error] = std::from_chars(begin, end, value);
  if (error != std::errc{} || stop != end) {
    const char* reason = error == std::errc::result_out_of_range ? "value out of range" : "invalid syntax";
    throw StorageError(ErrorCode::InvalidArgument, key,
                       "invalid resource version: resourceVersion: Invalid value: \"" + resource_version +
                           "\": strconv.ParseUint: parsing \"" + resource_version + "\": " + reason);
  }
  return static_cast<Revision>(std::min<std::uint64_t>(value, std::numeric_limits<Revision>::max()));
}

void validate_key(const std::string& key, bool prefix) {
  // kube's prepareKey refuses "..", "../x", "x/..", "x/../y" and the same with ".": a path segment that is a dot
  // or two. Every storage call asks, so the segments are scanned in place.
  const std::string_view k = key;
  for (std::size_t start = 0;;) {
    const std::size_t end = k.find('/', start);
    const std::string_view segment = k.substr(start, end == std::string_view::npos ? end : end - start);
    if (segment == "." || segment == "..")
      throw StorageError(ErrorCode::InvalidArgument, key, "invalid key: \"" + key + "\"");
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  if (k.empty() || (k == "/" && !prefix)) {
    throw StorageError(ErrorCode::InvalidArgument, key, "empty key: \"" + key + "\"");
  }
}

}  // namespace kapi::storage
