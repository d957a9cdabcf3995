#pragma once
// The params of a policy binding (kube's generic.CollectParams): the object paramRef names, or those its selector
// selects, read from the param kind's watch cache; cluster-scoped or namespaced by the kind; parameterNotFoundAction
// when there are none.
#include "server/admission/plugin.h"
#include "server/plugin/admission/validating_admission_policy/policy.h"

#include <asio/awaitable.hpp>
#include <boost/json/object.hpp>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kapi::admission::policy {

// The Store serving a paramKind, a built-in kind in the version kapi serves or a custom resource, or null: kube's
// REST mapping. A custom resource's Store is held for as long as the pointer is.
std::shared_ptr<registry::Store> param_store(const StoreLookup& stores, const CustomStoreLookup& custom_stores,
                                             const ParamKind& kind);

struct CollectedParams {
  // One evaluation per param; a single null param when the policy or binding has no param configuration; none
  // when nothing was found and the binding allows that.
  std::vector<std::shared_ptr<const boost::json::object>> params;
  std::optional<std::string> error;  // a configuration error (kube's wording), to be prefixed by the caller
};

asio::awaitable<CollectedParams> collect_params(const std::optional<ParamKind>& kind, registry::Store* store,
                                                const std::optional<ParamRef>& reference,
                                                const std::string& request_namespace);

}  // namespace kapi::admission::policy
