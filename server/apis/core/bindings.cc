// core/v1 Binding at /api/v1/namespaces/{namespace}/bindings (pkg/registry/core/pod/storage: kube installs the
// pods' BindingREST there too, create only): the pod the binding names is bound as pods/binding binds it.
#include "server/apis/core/pod_subresources.h"
#include "server/apis/resource_storage.h"
#include "server/apierrors/errors.h"
#include "server/registry/object_meta.h"

#include <boost/json.hpp>

namespace kapi::apis {

registry::Creater bindings(registry::Store& pods) {
  registry::ResourceDefinition definition{.group = "", .version = "v1", .resource = "bindings", .kind = "Binding",
                                          .singular = "binding", .namespaced = true, .verbs = {"create"}};
  auto create = [&pods](registry::CreateRequest request) -> asio::awaitable<boost::json::object> {
    // The create handler's EnsureObjectNamespaceMatchesRequestNamespace.
    boost::json::object& metadata = registry::metadata_of(request.object);
    const std::string_view namespace_ = registry::string_field(metadata, "namespace");
    if (namespace_.empty()) metadata["namespace"] = request.namespace_;
    else if (namespace_ != request.namespace_)
      throw apierrors::ApiError(apierrors::bad_request(
          "the namespace of the provided object does not match the namespace sent on the request"));
    std::string name(registry::string_field(metadata, "name"));
    auto pending = core::bind_pod(pods, request.namespace_, std::move(name), std::move(request.object), request.dry_run);
    co_await std::move(pending);
    co_return boost::json::object();  // a Success Status
  };
  return {std::move(definition), std::move(create)};
}

}  // namespace kapi::apis
