#pragma once
// Writing resource responses: objects and lists as JSON, or as a Table / PartialObjectMetadata when asked.
#include "server/endpoints/handlers/handlers.h"
#include "server/endpoints/negotiation.h"

#include <boost/json/object.hpp>

#include <string>
#include <vector>

namespace kapi::endpoints::handlers {

// One object (JSON bytes with resourceVersion) in the representation the client asked for.
asio::awaitable<void> write_object(Scope& scope, int status, const std::string& object);
// The same for an object a read returned, whose encodings the cache may share.
asio::awaitable<void> write_object(Scope& scope, int status, const registry::ReadObject& object);
// A list, as <Kind>List, Table or PartialObjectMetadataList.
asio::awaitable<void> write_list(Scope& scope, const registry::ObjectList& list);

// The Table for `objects` (each a parsed object); `headers`: include columnDefinitions (a watch sends them once).
boost::json::object to_table(const registry::Strategy& strategy, const std::vector<boost::json::object>& objects,
                             bool headers);
boost::json::object partial_object_metadata(const boost::json::object& object);
// A list's metadata: resourceVersion, continue and remainingItemCount.
boost::json::object list_metadata(const registry::ObjectList& list);

// The request body as a JSON object; throws ApiError 400 when it is not one.
boost::json::object decode_object(std::string_view body);
// Conforms a decoded body to its kind's schema (unknown fields dropped, +defaults filled, wrong types → 400) and
// applies fieldValidation: unknown fields fail a Strict request and become warnings under Warn.
void conform_body(Scope& scope, boost::json::object& object);
// dryRun: absent → false, "All" → true; anything else → 400 as kube answers.
bool dry_run(const http::QueryParams& query);
// resourceVersion/resourceVersionMatch/limit/continue/selectors of a list or watch.
registry::ListRequest list_request(const Scope& scope);

}  // namespace kapi::endpoints::handlers
