#pragma once
// An admission plugin (k8s.io/apiserver/pkg/admission: Interface, MutationInterface, ValidationInterface) and
// what it is given when it is made (the role of kube's plugin initializers).
//
// A plugin refuses a request by throwing apierrors::ApiError with kube's Status (errors.h has the
// admission.NewForbidden wording most plugins use). Plugins run on the reactor thread of the request: anything
// that waits (reading another resource, calling a webhook) is co_awaited, never blocked on. One plugin object
// serves every request on every thread: what it keeps between requests is thread-safe.
//
// `handles` is asked first, synchronously, with the whole request: a plugin that has nothing to do for it says so
// there and costs the request no coroutine (kube's Handles takes only the operation; most of kube's plugins
// then return at once on the resource, which is what this answers without suspending).
#include "server/admission/attributes.h"

#include <asio/any_io_executor.hpp>
#include <asio/awaitable.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace kapi::base { class Logger; }
namespace kapi::metrics { class Registry; }
namespace kapi::authorization { class Authorizer; }
namespace kapi::registry { class Store; }
namespace kapi::schema { class Catalog; }

namespace kapi::admission {

class Plugin {
 public:
  virtual ~Plugin() = default;

  virtual bool handles(const Attributes& attributes) const = 0;

  // kube's MutationInterface: a mutating plugin overrides `admit` and says so in `mutates`.
  virtual bool mutates() const { return false; }
  virtual asio::awaitable<void> admit(Attributes& /*attributes*/) { co_return; }

  // kube's ValidationInterface: sees the object as it will be stored; may not change it.
  virtual bool validates() const { return false; }
  virtual asio::awaitable<void> validate(const Attributes& /*attributes*/) { co_return; }
};

// The registry Store of a built-in resource (reads go through its watch cache), or null when not served.
using StoreLookup = std::function<registry::Store*(std::string_view group, std::string_view resource)>;

// The registry Store of a custom resource by group, version and kind (kube's REST mapping of a GVK), or null. The
// pointer keeps what the Store reads through alive while a request uses it, though the CRD may be withdrawn meanwhile.
using CustomStoreLookup = std::function<std::shared_ptr<registry::Store>(
    std::string_view group, std::string_view version, std::string_view kind)>;

// A served custom resource version as a policy's type checking sees it (kube resolves it through discovery and the
// group version's OpenAPI document): its resource, kind and openAPIV3Schema as the CRD has it.
struct CustomResourceSchema {
  std::string resource;
  std::string kind;
  boost::json::object openapi_schema;
};
// The custom resources served at a group version (none before the API extensions server serves its CRDs).
using CustomSchemaLookup =
    std::function<std::vector<CustomResourceSchema>(std::string_view group, std::string_view version)>;

// What a plugin is made with. Everything outlives the plugin.
struct PluginContext {
  StoreLookup stores;
  CustomStoreLookup custom_stores;  // answers once the API extensions server serves its CRDs
  CustomSchemaLookup custom_schemas;  // likewise
  const authorization::Authorizer* authorizer = nullptr;
  // The plugin's configuration from --admission-control-config-file (the `configuration` object of its entry,
  // or the file its `path` names, as JSON), null when none is given.
  const boost::json::value* configuration = nullptr;
  base::Logger* logger = nullptr;
  metrics::Registry* metrics = nullptr;
  asio::any_io_executor executor;  // for plugins that keep watches or timers of their own
  // Set at shutdown: what watches a plugin keeps stop on (null: the plugin keeps none).
  std::shared_ptr<const std::atomic<bool>> stopping;
  const schema::Catalog* catalog = nullptr;  // the built-in kinds' type schemas
  // Flags of kube-apiserver that plugins read.
  std::int64_t default_not_ready_toleration_seconds = 300;    // --default-not-ready-toleration-seconds
  std::int64_t default_unreachable_toleration_seconds = 300;  // --default-unreachable-toleration-seconds
  std::string proxy_client_cert_file;  // the client certificate webhooks are called with (--proxy-client-cert-file)
  std::string proxy_client_key_file;
};

using PluginFactory = std::function<std::unique_ptr<Plugin>(const PluginContext&)>;

}  // namespace kapi::admission
