#include "storage/etcd3/conversions.h"

#include <charconv>
#include <limits>

namespace kapi::storage::etcd3 {

Revision parse_resource_version(const std::string& resource_version, const std::string& key) {
  if (resource_version.empty() || resource_version == "0") return 0;
  std::uint64_t value = 0;
  const char* begin = resource_version.data();
  const char* end = begin + resource_version.size();
  auto [stop, error] = std::from_chars(begin, end, value);
  if (error != std::errc{} || stop != end || value > static_cast<std::uint64_t>(std::numeric_limits<Revision>::max())) {
    const char* reason = error == std::errc::result_out_of_range ? "value out of range" : "invalid syntax";
    throw StorageError(ErrorCode::InvalidArgument, key,
                       "invalid resource version: resourceVersion: Invalid value: \"" + resource_version +
                           "\": strconv.ParseUint: parsing \"" + resource_version + "\": " + reason);
  }
  return static_cast<Revision>(value);
}

StorageError to_storage_error(const RpcError& error, const std::string& key, const std::string& expired_message) {
  if (error.compacted()) return StorageError(ErrorCode::Expired, key, expired_message);
  switch (error.code()) {
    case grpc::StatusCode::UNAVAILABLE:
      return StorageError(ErrorCode::Unreachable, key, std::string("etcd: ") + error.what());
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return StorageError(ErrorCode::Timeout, key, std::string("etcd: ") + error.what());
    default:
      return StorageError(ErrorCode::Internal, key, error.what());
  }
}

}  // namespace kapi::storage::etcd3
