#include "server/endpoints/handlers/response.h"

#include "request/list_options_probe.h"
#include "server/endpoints/handlers/compression.h"
#include "server/endpoints/handlers/protobuf.h"
#include "server/registry/object_meta.h"
#include "server/registry/predicate.h"
#include "server/validation/list_options.h"

#include <boost/json.hpp>

#include <algorithm>
#include <charconv>

namespace kapi::endpoints::handlers {
namespace {

namespace json = boost::json;

json::object parse(const std::string& bytes) {
  json::value value = registry::parse_json(bytes);
  return value.is_object() ? std::move(value.as_object()) : json::object();
}

asio::awaitable<void> write_json(Scope& scope, int status, std::string body) {
  std::string content_type = "application/json";  // named: no temporary inside a co_await (g++ 12)
  co_await write_serialized(scope.exchange, status, std::move(content_type), std::move(body));
}

}  // namespace

// The end of `"<field>":"<value>",` at `at` in `object`, or npos when it is not there in that plain form.
std::size_t skip_string_field(std::string_view object, std::size_t at, std::string_view field) {
  // `"<field>":"`, compared in place: this runs twice for every item of every LIST.
  const std::string_view rest = object.substr(std::min(at, object.size()));
  if (rest.size() < field.size() + 4 || rest[0] != '"' || rest.substr(1, field.size()) != field ||
      rest.substr(field.size() + 1, 3) != "\":\"")
    return std::string_view::npos;
  const std::size_t end = object.find('"', at + field.size() + 4);
  if (end == std::string_view::npos || object.substr(at, end - at).find('\\') != std::string_view::npos ||
      end + 1 >= object.size() || object[end + 1] != ',')
    return std::string_view::npos;
  return end + 2;
}

// A list item as kube writes it: without its kind and apiVersion (kubernetes#3030; clients rely on the list's).
// Stored objects start with them, as Go's encoder and Store::encode_for_storage write TypeMeta first, so they are
// cut from the front without parsing; anything else is parsed.
void append_list_item(std::string& body, std::string_view object) {
  std::size_t rest = object.starts_with('{') ? skip_string_field(object, 1, "kind") : std::string_view::npos;
  if (rest != std::string_view::npos) rest = skip_string_field(object, rest, "apiVersion");
  if (rest != std::string_view::npos) {
    body += '{';
    body.append(object.substr(rest));
    return;
  }
  json::object parsed = parse(std::string(object));
  parsed.erase("kind");
  parsed.erase("apiVersion");
  body += json::serialize(parsed);
}

json::object list_metadata(storage::Revision revision, const std::string& continue_token,
                           std::optional<std::int64_t> remaining_item_count) {
  json::object metadata;
  metadata["resourceVersion"] = std::to_string(revision);
  if (!continue_token.empty()) metadata["continue"] = continue_token;
  if (remaining_item_count) metadata["remainingItemCount"] = *remaining_item_count;
  return metadata;
}

json::object list_metadata(const registry::ObjectList& list) {
  return list_metadata(list.revision, list.continue_token, list.remaining_item_count);
}

json::object partial_object_metadata(const json::object& object) {
  json::object out;
  out["kind"] = "PartialObjectMetadata";
  out["apiVersion"] = "meta.k8s.io/v1";
  auto metadata = object.find("metadata");
  out["metadata"] = metadata != object.end() ? metadata->value() : json::object();
  return out;
}

json::object to_table(const registry::Strategy& strategy, const std::vector<json::object>& objects, bool headers) {
  json::object table;
  table["kind"] = "Table";
  table["apiVersion"] = "meta.k8s.io/v1";
  table["metadata"] = json::object();
  json::array columns;
  if (headers) {
    for (const auto& column : strategy.table_columns()) {
      columns.push_back({{"name", column.name},
                         {"type", column.type},
                         {"format", column.format},
                         {"description", column.description},
                         {"priority", column.priority}});
    }
  }
  table["columnDefinitions"] = std::move(columns);
  json::array rows;
  for (const auto& object : objects) {
    json::object row{{"cells", strategy.table_cells(object)}};
    if (json::array conditions = strategy.table_row_conditions(object); !conditions.empty())
      row["conditions"] = std::move(conditions);
    row["object"] = partial_object_metadata(object);
    rows.push_back(std::move(row));
  }
  table["rows"] = std::move(rows);
  return table;
}

// By value: a handler done with its object moves it in, and the JSON becomes the body without a copy.
asio::awaitable<void> write_object(Scope& scope, int status, registry::ReadObject object) {
  const Output output = negotiate(scope.request(), has_protobuf_form(scope));
  if (output.encoding == Encoding::Protobuf)
    co_return co_await write_protobuf_object(scope, status, object.json, output.representation, object.encodings.get());
  co_await write_object(scope, status, std::move(object.json));
}

asio::awaitable<void> write_object(Scope& scope, int status, std::string object) {
  const Output output = negotiate(scope.request(), has_protobuf_form(scope));
  if (output.encoding == Encoding::Protobuf)
    co_return co_await write_protobuf_object(scope, status, object, output.representation);
  switch (output.representation) {
    case Representation::Object:
      co_await write_json(scope, status, std::move(object));
      co_return;
    case Representation::Table: {
      std::vector<json::object> objects{parse(object)};
      json::object table = to_table(scope.store.strategy(), objects, true);
      table["metadata"] = json::object{{"resourceVersion", std::string(registry::meta_string(objects[0], "resourceVersion"))}};
      co_await write_json(scope, status, json::serialize(table));
      co_return;
    }
    case Representation::PartialObjectMetadata:
      co_await write_json(scope, status, json::serialize(partial_object_metadata(parse(object))));
      co_return;
  }
}

asio::awaitable<void> write_list(Scope& scope, const registry::ObjectList& list) {
  const Output output = negotiate(scope.request(), has_protobuf_form(scope));
  if (output.encoding == Encoding::Protobuf) co_return co_await write_protobuf_list(scope, list, output.representation);
  switch (output.representation) {
    case Representation::Object: {
      // The items are already JSON: the list is assembled around them rather than re-encoded.
      const auto& definition = scope.store.definition();
      std::string body = "{\"kind\":\"" + definition.list_kind() + "\",\"apiVersion\":\"" +
                         definition.group_version() + "\",\"metadata\":" + json::serialize(list_metadata(list)) +
                         ",\"items\":[";
      std::size_t size = body.size() + list.items.size() + 2;
      for (const auto& item : list.items) size += item.json.size();
      body.reserve(size);  // one allocation: a 10k-item list is megabytes, copied again by each regrowth
      for (std::size_t i = 0; i < list.items.size(); ++i) {
        if (i) body += ',';
        if (definition.unstructured) body += list.items[i].json;
        else append_list_item(body, list.items[i].json);
      }
      body += "]}";
      co_await write_json(scope, 200, std::move(body));
      co_return;
    }
    case Representation::Table: {
      std::vector<json::object> objects;
      objects.reserve(list.items.size());
      for (const auto& item : list.items) objects.push_back(parse(item.json));
      scope.store.strategy().order_table_rows(objects);
      json::object table = to_table(scope.store.strategy(), objects, true);
      table["metadata"] = list_metadata(list);
      co_await write_json(scope, 200, json::serialize(table));
      co_return;
    }
    case Representation::PartialObjectMetadata: {
      json::array items;
      for (const auto& item : list.items) items.push_back(partial_object_metadata(parse(item.json)));
      json::object out{{"kind", "PartialObjectMetadataList"},
                       {"apiVersion", "meta.k8s.io/v1"},
                       {"metadata", list_metadata(list)},
                       {"items", std::move(items)}};
      co_await write_json(scope, 200, json::serialize(out));
      co_return;
    }
  }
}

bool dry_run(const http::QueryParams& query) {
  auto values = query.all("dryRun");
  for (auto value : values)
    if (value != "All")
      throw apierrors::ApiError(
          apierrors::bad_request("dryRun: Unsupported value: \"" + std::string(value) + "\": supported values: \"All\""));
  return !values.empty();
}

registry::ListRequest list_request(const Scope& scope, bool watch) {
  const auto& query = scope.query();
  registry::ListRequest request;
  request.resource_version = std::string(query.get("resourceVersion").value_or(""));
  if (auto limit = query.get("limit"); limit && !limit->empty()) {
    std::int64_t value = 0;
    auto [end, error] = std::from_chars(limit->data(), limit->data() + limit->size(), value);
    if (error != std::errc() || end != limit->data() + limit->size())
      throw apierrors::ApiError(apierrors::bad_request("limit: Invalid value: \"" + std::string(*limit) + "\""));
    request.limit = value > 0 ? value : 0;
  }
  // What the parameter codec decoded, checked as kube's ListResource checks it (ValidateListOptions).
  const std::string_view match = query.get("resourceVersionMatch").value_or("");
  validation::ListOptionsFields fields{.watch = watch,
                                       .resource_version = request.resource_version,
                                       .resource_version_match = match,
                                       .continue_token = query.get("continue").value_or("")};
  if (auto send_initial_events = query.get("sendInitialEvents"))
    fields.send_initial_events = request::query_value_is_true(*send_initial_events);
  if (validation::ErrorList errors = validation::validate_list_options(fields); !errors.empty())
    throw apierrors::ApiError(apierrors::invalid("meta.k8s.io", "ListOptions", "", errors));
  if (match == "NotOlderThan") request.resource_version_match = storage::ResourceVersionMatch::NotOlderThan;
  else if (match == "Exact") request.resource_version_match = storage::ResourceVersionMatch::Exact;
  request.continue_token = std::string(query.get("continue").value_or(""));
  request.predicate = registry::make_predicate(query.get("labelSelector").value_or(""),
                                               query.get("fieldSelector").value_or(""), scope.store.strategy());
  return request;
}

}  // namespace kapi::endpoints::handlers
