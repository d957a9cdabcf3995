#pragma once
// Small translations between etcd's messages and the storage contract, shared by the store and its watches.
#include "protos/etcd/kv.pb.h"
#include "storage/etcd3/client.h"
#include "storage/interface.h"

#include <string>

namespace kapi::storage::etcd3 {

inline KeyValue to_key_value(const mvccpb::KeyValue& kv) {
  return KeyValue{kv.key(), kv.value(), kv.create_revision(), kv.mod_revision(), kv.lease()};
}

// A failed etcd call as the storage error kube-apiserver reports for it: Unreachable/Timeout when etcd did not
// answer, Expired for a compacted revision (with `expired_message`), Internal otherwise.
StorageError to_storage_error(const RpcError& error, const std::string& key,
                              const std::string& expired_message = "The resourceVersion for the provided list is too old.");

}  // namespace kapi::storage::etcd3
