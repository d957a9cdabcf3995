#pragma once
// What every backend checks of a key and a resourceVersion before it reads or writes, once, with kube's words:
// etcd3 store.prepareKey's key rules and APIObjectVersioner.ParseResourceVersion.
#include "storage/interface.h"

#include <string>

namespace kapi::storage {

// "" and "0" mean no particular revision (0); anything else must be a decimal uint64. Throws
// StorageError(InvalidArgument, key) with kube's wording ("invalid resource version: resourceVersion: Invalid
// value: \"x\": strconv.ParseUint: parsing \"x\": invalid syntax"). Beyond int64 it is simply a revision too large.
Revision parse_resource_version(const std::string& resource_version, const std::string& key = "");

// No "." or ".." segment, and not empty: StorageError(InvalidArgument) "invalid key: \"k\"" or "empty key: \"k\"".
// "/" names the whole keyspace, which only a prefix (a list, count or watch of everything) may.
void validate_key(const std::string& key, bool prefix = false);

}  // namespace kapi::storage
