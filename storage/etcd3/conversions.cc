#include "storage/etcd3/conversions.h"


namespace kapi::storage::etcd3 {

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
