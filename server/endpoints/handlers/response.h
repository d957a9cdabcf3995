#pragma once
// Writing resource responses: objects and lists as JSON, or as a Table / PartialObjectMetadata when asked.
#include "server/endpoints/handlers/handlers.h"
#include "server/endpoints/negotiation.h"

#include <boost/json/object.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kapi::endpoints::handlers {

// One object (JSON bytes with resourceVersion) in the representation the client asked for.
asio::awaitable<void> write_object(Scope& scope, int status, std::string object);
// The same for an object a read returned, whose encodings the cache may share.
asio::awaitable<void> write_object(Scope& scope, int status, registry::ReadObject object);
// A list, as <Kind>List, Table or PartialObjectMetadataList.
asio::awaitable<void> write_list(Scope& scope, const registry::ObjectList& list);
// A list read as the stored objects themselves: a large JSON list is streamed (list_stream.cc), anything else is
// written as above.
asio::awaitable<void> write_list(Scope& scope, const storage::SharedListResult& list);

// The end of `"<field>":"<value>",` at `at` in `object`, or npos when it is not there in that plain form.
std::size_t skip_string_field(std::string_view object, std::size_t at, std::string_view field);
// Appends an object's JSON as a list item: without its kind and apiVersion (kubernetes#3030).
void append_list_item(std::string& body, std::string_view object);

// The Table for `objects` (each a parsed object); `headers`: include columnDefinitions (a watch sends them once).
boost::json::object to_table(const registry::Strategy& strategy, const std::vector<boost::json::object>& objects,
                             bool headers);
boost::json::object partial_object_metadata(const boost::json::object& object);
// A list's metadata: resourceVersion, continue and remainingItemCount.
boost::json::object list_metadata(const registry::ObjectList& list);
boost::json::object list_metadata(storage::Revision revision, const std::string& continue_token,
                                  std::optional<std::int64_t> remaining_item_count);

// Conforms a decoded body to its kind's schema (unknown fields dropped, +defaults filled, wrong types → 400) and
// applies fieldValidation: unknown fields fail a Strict request and become warnings under Warn.
void conform_body(Scope& scope, boost::json::object& object);
// dryRun: absent → false, "All" → true; anything else → 400 as kube answers.
bool dry_run(const http::QueryParams& query);
// resourceVersion/resourceVersionMatch/limit/continue/selectors of a list or (`watch`) a watch, validated as kube
// validates ListOptions (422 Invalid ListOptions.meta.k8s.io).
registry::ListRequest list_request(const Scope& scope, bool watch = false);

}  // namespace kapi::endpoints::handlers
