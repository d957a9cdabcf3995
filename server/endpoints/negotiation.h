#pragma once
// Content negotiation for resource responses and request bodies (k8s.io/apiserver/pkg/endpoints/handlers/
// negotiation): which representation the client asked for in Accept, and whether a body's Content-Type is one
// kapi decodes.
#include "server/http/request.h"

#include <string_view>

namespace kapi::endpoints {

enum class Representation {
  Object,                 // the object or list itself (JSON)
  Table,                  // meta.k8s.io/v1 Table (as=Table;v=v1|v1beta1;g=meta.k8s.io)
  PartialObjectMetadata,  // meta.k8s.io/v1 PartialObjectMetadata(List)
};

enum class Encoding { Json, Protobuf };

struct Output {
  Representation representation;
  Encoding encoding;
};

// The first acceptable media type in Accept order: JSON, or application/vnd.kubernetes.protobuf (also with
// ;stream=watch) for objects and lists when `objects_have_protobuf` (their kind has a type schema; kube offers no
// protobuf for a CRD either) and for PartialObjectMetadata; a Table has no protobuf form, as in kube. Throws ApiError
// 406 NotAcceptable when Accept names only media types kapi cannot produce.
Output negotiate(const http::Request& request, bool objects_have_protobuf = true);
inline Representation negotiate_output(const http::Request& request) { return negotiate(request).representation; }

enum class BodyFormat { Json, Yaml, Protobuf, JsonPatch, MergePatch, StrategicMergePatch, ApplyPatch };

// The body's format from Content-Type (a PUT or POST without one is JSON; application/yaml is read as kube reads it);
// throws ApiError 415 otherwise.
BodyFormat body_format(const http::Request& request, bool patch);

}  // namespace kapi::endpoints
