#pragma once
// --storage-media-type: the form built-in objects take in the store, as kube's storage codec writes them. With
// application/vnd.kubernetes.protobuf (kube's default) an object is kube's protobuf serialization, "k8s\0" and a
// runtime.Unknown envelope around the kind's message; with application/json it is the JSON object. Either way every
// value is read whatever its form (kube's recognizing decoder), so a store written by kube-apiserver or by a kapi
// with the other setting is served as it is; an update leaves a value in the other form to be rewritten in this one
// whenever the object next changes.
#include "server/schema/catalog.h"
#include "storage/value/transformer.h"

#include <memory>
#include <string_view>

namespace kapi::schema {

// Values in the form of `media_type` (kProtobufMediaType or "application/json"), read in either; a kind the
// catalog has no message for stays JSON. `catalog` must outlive the transformer.
std::shared_ptr<const storage::value::Transformer> storage_codec(const Catalog& catalog, std::string_view media_type);

}  // namespace kapi::schema
