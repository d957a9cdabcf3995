#include "server/endpoints/handlers/protobuf.h"

#include "server/endpoints/handlers/compression.h"
#include "server/endpoints/handlers/response.h"
#include "server/registry/object_meta.h"
#include "server/schema/transcoder.h"
#include "server/schema/wire.h"

#include <boost/json.hpp>

#include <cstdio>

namespace kapi::endpoints::handlers {
namespace json = boost::json;

namespace {

asio::awaitable<void> write_envelope(request::Exchange& exchange, int status, std::string body) {
  std::string content_type(schema::kProtobufMediaType);
  co_await write_serialized(exchange, status, std::move(content_type), std::move(body));
}

// A stored object or list that has no protobuf form is kapi's fault, not the client's.
std::string encode_or_fail(const schema::Catalog& catalog, const json::object& object) {
  try {
    return schema::Transcoder(catalog).encode(object);
  } catch (const schema::TranscodeError& error) {
    throw apierrors::ApiError(apierrors::internal_error(std::string("protobuf encoding failed: ") + error.what()));
  }
}

json::object parse_stored(const std::string& bytes) {
  json::value value = registry::parse_json(bytes);
  return value.is_object() ? std::move(value.as_object()) : json::object();
}

// The format under which an object version's message (the envelope's raw) is kept in its encodings: the part of
// a GET and of every LIST item that is the same for every reader.
constexpr std::string_view kMessageFormat = "protobuf:message";

std::string encode_message(const Scope& scope, const std::string& object) {
  const auto& definition = scope.store.definition();
  schema::Transcoder transcoder(scope.catalog);
  const auto* message = transcoder.message_for(definition.group_version(), definition.kind);
  try {
    if (!message) throw schema::TranscodeError("no protobuf schema for kind \"" + definition.kind + "\"");
    return transcoder.to_protobuf(*message, parse_stored(object));
  } catch (const schema::TranscodeError& error) {
    throw apierrors::ApiError(apierrors::internal_error(std::string("protobuf encoding failed: ") + error.what()));
  }
}

std::shared_ptr<const std::string> message_of(const Scope& scope, const std::string& object,
                                              const storage::EncodingCache* encodings) {
  if (encodings) return encodings->get_or_encode(kMessageFormat, [&] { return encode_message(scope, object); });
  return std::make_shared<const std::string>(encode_message(scope, object));
}

}  // namespace

bool has_protobuf_form(const schema::Catalog& catalog, const registry::ResourceDefinition& definition) {
  return schema::Transcoder(catalog).message_for(definition.group_version(), definition.kind) != nullptr;
}

asio::awaitable<void> write_protobuf_value(request::Exchange& exchange, const schema::Catalog& catalog, int status,
                                          const json::object& object) {
  co_await write_envelope(exchange, status, encode_or_fail(catalog, object));
}

asio::awaitable<void> write_protobuf_object(Scope& scope, int status, const std::string& object,
                                            Representation representation,
                                            const storage::EncodingCache* encodings) {
  if (representation == Representation::PartialObjectMetadata) {
    co_await write_envelope(scope.exchange, status,
                            encode_or_fail(scope.catalog, partial_object_metadata(parse_stored(object))));
    co_return;
  }
  const auto& definition = scope.store.definition();
  schema::Unknown envelope{{definition.group_version(), definition.kind}, *message_of(scope, object, encodings)};
  co_await write_envelope(scope.exchange, status, schema::write_envelope(envelope));
}

asio::awaitable<void> write_protobuf_list(Scope& scope, const registry::ObjectList& list,
                                          Representation representation) {
  const auto& definition = scope.store.definition();
  if (representation == Representation::PartialObjectMetadata) {
    json::array items;
    items.reserve(list.items.size());
    for (const auto& item : list.items) items.push_back(partial_object_metadata(parse_stored(item.json)));
    json::object out{{"kind", "PartialObjectMetadataList"},
                     {"apiVersion", "meta.k8s.io/v1"},
                     {"metadata", list_metadata(list)},
                     {"items", std::move(items)}};
    co_await write_envelope(scope.exchange, 200, encode_or_fail(scope.catalog, out));
    co_return;
  }
  // The list's message is its ListMeta then each item's message, which the items' encodings already hold: only
  // the list's own fields are encoded here.
  schema::Transcoder transcoder(scope.catalog);
  const auto* list_message = transcoder.message_for(definition.group_version(), definition.list_kind());
  const auto* metadata_field = list_message ? list_message->FindFieldByName("metadata") : nullptr;
  const auto* items_field = list_message ? list_message->FindFieldByName("items") : nullptr;
  if (!metadata_field || !items_field || !metadata_field->message_type())
    throw apierrors::ApiError(apierrors::internal_error("protobuf encoding failed: no protobuf schema for kind \"" +
                                                        definition.list_kind() + "\""));
  schema::Unknown envelope{{definition.group_version(), definition.list_kind()}, {}};
  schema::wire::put_bytes(envelope.raw, metadata_field->number(),
                          transcoder.to_protobuf(*metadata_field->message_type(), list_metadata(list)));
  for (const auto& item : list.items)
    schema::wire::put_bytes(envelope.raw, items_field->number(), *message_of(scope, item.json, item.encodings.get()));
  co_await write_envelope(scope.exchange, 200, schema::write_envelope(envelope));
}

asio::awaitable<void> write_status(request::Exchange& exchange, const schema::Catalog& catalog,
                                   const apierrors::Status& status) {
  bool protobuf = false;
  try {
    protobuf = negotiate(exchange.request).encoding == Encoding::Protobuf;
  } catch (const apierrors::ApiError&) {
  }
  auto& response = *exchange.response;
  if (status.details && status.details->retry_after_seconds > 0)
    response.headers().set("Retry-After", std::to_string(status.details->retry_after_seconds));
  std::string body = apierrors::to_json(status);
  if (protobuf) {
    try {
      body = schema::Transcoder(catalog).encode(registry::parse_json(body).as_object());
    } catch (const schema::TranscodeError&) {
      protobuf = false;  // the catalog lacks meta.v1 Status: JSON, which every client reads
    }
  }
  // (Named first: g++ 12 destroys a temporary made inside a co_await expression twice.)
  std::string content_type = protobuf ? std::string(schema::kProtobufMediaType) : "application/json";
  co_await write_serialized(exchange, status.code, std::move(content_type), std::move(body));
}

std::string protobuf_watch_frame(const schema::Catalog& catalog, std::string_view type, const json::value& object) {
  if (!object.is_object()) return {};
  try {
    return schema::length_delimited_frame(schema::Transcoder(catalog).encode_watch_event(type, object.get_object()));
  } catch (const schema::TranscodeError&) {
    return {};
  }
}

}  // namespace kapi::endpoints::handlers
