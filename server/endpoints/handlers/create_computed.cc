// POST to a resource whose answer is computed, not stored (kube's create handler over a rest.Creater that has no
// Store: the authentication and authorization reviews). The body is decoded and conformed to the kind as for any
// create; the Creater's answer goes back with 201, its JSON written as Go writes the type.
#include "server/endpoints/handlers/body.h"
#include "server/endpoints/handlers/compression.h"
#include "server/endpoints/handlers/handlers.h"
#include "server/endpoints/handlers/protobuf.h"
#include "server/endpoints/handlers/response.h"

#include <boost/json.hpp>

namespace kapi::endpoints::handlers {

asio::awaitable<void> create_computed(request::Exchange& exchange, const schema::Catalog& catalog,
                                      const registry::Creater& creater) {
  const registry::ResourceDefinition& definition = creater.definition;
  const BodyTarget target{exchange, catalog, definition};
  DecodedBody body = decode_body(target);
  conform_decoded(target, body);
  body.object["apiVersion"] = definition.group_version();
  body.object["kind"] = definition.kind;
  registry::CreateRequest request{exchange.context.user.value_or(request::UserInfo{}),
                                  exchange.context.request_info ? exchange.context.request_info->namespace_ : "",
                                  std::move(body.object), dry_run(exchange.request.query)};
  boost::json::object answer = co_await creater.create(std::move(request));
  if (answer.empty()) {
    apierrors::Status success{201, "", "", std::nullopt};
    co_return co_await write_status(exchange, catalog, success);
  }
  co_await write_made_object(exchange, catalog, definition, 201, std::move(answer));
}

asio::awaitable<void> write_made_object(request::Exchange& exchange, const schema::Catalog& catalog,
                                        const registry::ResourceDefinition& kind, int status,
                                        boost::json::object object) {
  object["apiVersion"] = kind.group_version();
  object["kind"] = kind.kind;
  const bool protobuf_form = has_protobuf_form(catalog, kind);
  if (protobuf_form && negotiate(exchange.request, true).encoding == Encoding::Protobuf)
    co_return co_await write_protobuf_value(exchange, catalog, status, object);
  // Through the type's protobuf form and back: the JSON then has Go's field order, omitempty and zero values
  // ("creationTimestamp": null, "allowed": false) whatever the maker left out.
  std::string json;
  if (protobuf_form) {
    schema::Transcoder transcoder(catalog);
    json = boost::json::serialize(transcoder.decode(transcoder.encode(object)));
  } else {
    json = boost::json::serialize(object);
  }
  std::string content_type = "application/json";  // named: no temporary inside a co_await (g++ 12)
  co_await write_serialized(exchange, status, std::move(content_type), std::move(json));
}

}  // namespace kapi::endpoints::handlers
