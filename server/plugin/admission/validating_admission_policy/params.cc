// kube's CollectParams (k8s.io/apiserver/pkg/admission/plugin/policy/generic/policy_dispatcher.go), with the live
// read kube later added for a param the cache has not seen yet (a param created a moment before the request).
#include "server/plugin/admission/validating_admission_policy/params.h"

#include "server/apierrors/errors.h"
#include "server/plugin/admission/webhook/matching.h"
#include "server/registry/object_meta.h"
#include "server/registry/store.h"

#include <algorithm>
#include <cctype>

namespace kapi::admission::policy {
namespace {

namespace json = boost::json;

// kind → resource the way kube's default REST mapper guesses a plural, confirmed against the stores' kinds.
std::vector<std::string> plural_candidates(std::string_view kind) {
  std::string lower(kind);
  std::ranges::transform(lower, lower.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  std::vector<std::string> candidates{lower + "s", lower + "es", lower};
  if (!lower.empty() && lower.back() == 'y') candidates.push_back(lower.substr(0, lower.size() - 1) + "ies");
  return candidates;
}

// A param as evaluation sees it: with apiVersion and kind set even where the stored form leaves them out.
std::shared_ptr<const json::object> as_param(std::string_view stored, const ParamKind& kind) {
  std::optional<json::object> object = registry::parse_json_object(stored);
  if (!object) return nullptr;
  if (!object->contains("apiVersion")) (*object)["apiVersion"] = kind.api_version;
  if (!object->contains("kind")) (*object)["kind"] = kind.kind;
  return std::make_shared<const json::object>(std::move(*object));
}

}  // namespace

std::shared_ptr<registry::Store> param_store(const StoreLookup& stores, const CustomStoreLookup& custom_stores,
                                             const ParamKind& kind) {
  if (stores) {
    for (const std::string& resource : plural_candidates(kind.kind)) {
      registry::Store* store = stores(kind.group, resource);
      // A built-in Store lives as long as the server: the pointer does not own it.
      if (store && store->definition().kind == kind.kind && store->definition().version == kind.version)
        return std::shared_ptr<registry::Store>(std::shared_ptr<void>(), store);
    }
  }
  return custom_stores ? custom_stores(kind.group, kind.version, kind.kind) : nullptr;
}

asio::awaitable<CollectedParams> collect_params(const std::optional<ParamKind>& kind, registry::Store* store,
                                                const std::optional<ParamRef>& reference,
                                                const std::string& request_namespace) {
  CollectedParams out;
  // No paramKind: any paramRef is ignored. A paramKind the binding does not use: evaluated without params.
  if (!kind || !reference) {
    out.params.push_back(nullptr);
    co_return out;
  }
  const bool namespaced = store->definition().namespaced;
  std::string params_namespace;
  if (namespaced) {
    params_namespace = reference->namespace_.empty() ? request_namespace : reference->namespace_;
    if (params_namespace.empty()) {
      out.error = "cannot use namespaced paramRef in policy binding that matches cluster-scoped resources";
      co_return out;
    }
  } else if (!reference->namespace_.empty()) {
    out.error = "paramRef.namespace must not be provided for a cluster-scoped `paramKind`";
    co_return out;
  }
  if (!reference->name.empty()) {
    if (reference->selector) {
      out.error = "paramRef.name and paramRef.selector are mutually exclusive";
      co_return out;
    }
    std::string stored;
    for (const char* resource_version : {"0", ""}) {  // the cache first; a miss is confirmed by a live read
      try {
        auto pending = store->get(params_namespace, reference->name, resource_version);  // g++ 12: no temporaries
        registry::ReadObject read = co_await std::move(pending);
        stored = std::move(read.json);
      } catch (const apierrors::ApiError& error) {
        if (error.status().code != 404) out.error = error.status().message;
      }
      if (!stored.empty() || out.error) break;
    }
    if (out.error) co_return out;
    if (!stored.empty())
      if (auto param = as_param(stored, *kind)) out.params.push_back(std::move(param));
  } else if (reference->selector) {
    registry::ListRequest request{.resource_version = "0"};
    auto pending = store->list(params_namespace, std::move(request));
    registry::ObjectList listed = co_await std::move(pending);
    for (const registry::ReadObject& object : listed.items) {
      std::shared_ptr<const json::object> param = as_param(object.json, *kind);
      if (param && reference->selector->matches(webhook::labels_of(param.get()))) out.params.push_back(std::move(param));
    }
  } else {
    out.error = "one of name or selector must be provided";
    co_return out;
  }
  if (out.params.empty() && reference->deny_when_not_found)
    out.error = "no params found for policy binding with `Deny` parameterNotFoundAction";
  co_return out;
}

}  // namespace kapi::admission::policy
