#pragma once
// The REST handlers, one per verb (k8s.io/apiserver/pkg/endpoints/handlers): each decodes its request, calls the
// resource's registry Store and writes the answer in the negotiated representation. Errors are thrown as
// apierrors::ApiError; the installer turns them into Status responses.
#include "filters/filter.h"
#include "server/apierrors/errors.h"
#include "server/lifecycle.h"
#include "server/registry/store.h"
#include "server/schema/catalog.h"
#include "server/schema/patch_schema.h"

#include <asio/awaitable.hpp>

namespace kapi::endpoints::handlers {

// What every handler works on: the request, the resource's store and what the request info says.
struct Scope {
  filters::Exchange& exchange;
  registry::Store& store;
  const filters::RequestInfo& info;
  server::Lifecycle& lifecycle;
  const schema::Catalog& catalog;  // the type schemas request bodies are decoded against
  const schema::PatchSchemas& patch_schemas;

  const http::Request& request() const { return exchange.request; }
  const http::QueryParams& query() const { return exchange.request.query; }
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

}  // namespace kapi::endpoints::handlers
