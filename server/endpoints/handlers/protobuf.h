#pragma once
// kube's protobuf media type (application/vnd.kubernetes.protobuf) on the REST endpoints: request bodies are
// transcoded to JSON before the JSON code path runs (body.h), and objects, lists, Status answers and watch events
// are transcoded on the way out when Accept prefers protobuf. kubectl's typed generators (`kubectl create configmap`)
// send nothing else, and client-go controllers ask for it first.
#include "server/endpoints/handlers/handlers.h"
#include "server/endpoints/negotiation.h"
#include "server/schema/transcoder.h"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <string>
#include <string_view>

namespace kapi::endpoints::handlers {

// Whether the resource's kind has a type schema, hence a protobuf form.
bool has_protobuf_form(const schema::Catalog& catalog, const registry::ResourceDefinition& definition);
inline bool has_protobuf_form(const Scope& scope) { return has_protobuf_form(scope.catalog, scope.store.definition()); }
// An object made for the response (its apiVersion and kind set), not read from storage, in the envelope.
asio::awaitable<void> write_protobuf_value(request::Exchange& exchange, const schema::Catalog& catalog, int status,
                                          const boost::json::object& object);

// One object (JSON bytes from the store) or a list in the envelope, as `representation` (Object or
// PartialObjectMetadata) asks. An object's message is taken from, or kept in, its read's `encodings` when it has
// them, so the cache encodes each object version once.
asio::awaitable<void> write_protobuf_object(Scope& scope, int status, const std::string& object,
                                            Representation representation,
                                            const storage::EncodingCache* encodings = nullptr);
asio::awaitable<void> write_protobuf_list(Scope& scope, const registry::ObjectList& list,
                                          Representation representation);

// A Status (an error, or a delete's success) in the encoding Accept prefers; JSON when Accept names nothing kapi can
// write, as kube's ErrorNegotiated falls back.
asio::awaitable<void> write_status(request::Exchange& exchange, const schema::Catalog& catalog,
                                   const apierrors::Status& status);

// The media type of a protobuf watch stream.
inline constexpr std::string_view kProtobufWatchMediaType = "application/vnd.kubernetes.protobuf;stream=watch";
// One frame of a protobuf watch stream: the length-prefixed WatchEvent carrying `object` in its envelope; empty
// when the object has no protobuf form (the stream then ends, as kube's does on an encoding error).
std::string protobuf_watch_frame(const schema::Catalog& catalog, std::string_view type, const boost::json::value& object);

}  // namespace kapi::endpoints::handlers
