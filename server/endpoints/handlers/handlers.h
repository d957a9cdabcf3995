#pragma once
// The REST handlers, one per verb (k8s.io/apiserver/pkg/endpoints/handlers): each decodes its request, calls the
// resource's registry Store and writes the answer in the negotiated representation. Errors are thrown as
// apierrors::ApiError; the installer turns them into Status responses.
#include "request/exchange.h"
#include "server/apierrors/errors.h"
#include "server/endpoints/field_managers.h"
#include "server/lifecycle.h"
#include "server/registry/creater.h"
#include "server/registry/store.h"
#include "server/schema/catalog.h"
#include "server/schema/patch_schema.h"

#include <asio/awaitable.hpp>

namespace kapi::admission {
class Chain;
class ObjectInterfaces;
}  // namespace kapi::admission

namespace kapi::endpoints::handlers {

// What decoding a request body needs: the exchange (its request, and its warnings under fieldValidation=Warn), the
// type schemas and the resource whose kind the body holds.
struct BodyTarget {
  request::Exchange& exchange;
  const schema::Catalog& catalog;
  const registry::ResourceDefinition& definition;
  const registry::Strategy* strategy = nullptr;  // for kinds the catalog lacks, which conform their own bodies

  const http::Request& request() const { return exchange.request; }
};

// What every handler works on: the request, the resource's store and what the request info says.
struct Scope {
  request::Exchange& exchange;
  registry::Store& store;
  const request::RequestInfo& info;
  server::Lifecycle& lifecycle;
  const schema::Catalog& catalog;  // the type schemas request bodies are decoded against
  const schema::PatchSchemas& patch_schemas;
  // The resource's managers of managedFields; null for a resource that tracks none.
  const FieldManagers* field_managers = nullptr;
  // The server's admission chain; null where writes are not admitted (tests of the handlers alone).
  const admission::Chain* admission = nullptr;
  const admission::ObjectInterfaces* object_interfaces = nullptr;  // the resource's other versions, for admission

  const http::Request& request() const { return exchange.request; }
  const http::QueryParams& query() const { return exchange.request.query; }
  BodyTarget body_target() const { return {exchange, catalog, store.definition(), &store.strategy()}; }
};

asio::awaitable<void> get(Scope scope);
asio::awaitable<void> list(Scope scope);
asio::awaitable<void> watch(Scope scope);
asio::awaitable<void> create(Scope scope);
asio::awaitable<void> update(Scope scope);
asio::awaitable<void> patch(Scope scope);
asio::awaitable<void> remove(Scope scope);
asio::awaitable<void> remove_collection(Scope scope);
// POST to a subresource of another kind (pods/binding, pods/eviction).
asio::awaitable<void> create_subresource(Scope scope, const registry::CreateSubresource& subresource);
// A connect subresource (pods/exec, services/proxy, pods/log, ...); `rest` is the path after the subresource.
asio::awaitable<void> connect(Scope scope, const registry::ConnectSubresource& subresource, std::string rest);
// POST to a resource that computes its answer (a SubjectAccessReview, ...).
asio::awaitable<void> create_computed(request::Exchange& exchange, const schema::Catalog& catalog,
                                      const registry::Creater& creater);
// An object made for the answer, not read from storage (a review, a TokenRequest), as `kind` in the encoding
// Accept prefers; its JSON written as Go writes the type.
asio::awaitable<void> write_made_object(request::Exchange& exchange, const schema::Catalog& catalog,
                                        const registry::ResourceDefinition& kind, int status,
                                        boost::json::object object);

}  // namespace kapi::endpoints::handlers
