#pragma once
// Serving custom resources (apiextensions-apiserver's crdHandler): for every established CRD, each served version
// gets a registry Store over its own Cacher (through the None conversion layer when it is not the storage version),
// grouped into one web service per group version. The set changes at run time: the CRD controller hands over the
// CRDs to serve, and requests work on an immutable snapshot, so a request in flight keeps what it started with.
#include "request/exchange.h"
#include "server/admission/plugin.h"
#include "server/apiextensions/crd_model.h"
#include "server/discovery/discovery.h"
#include "server/endpoints/installer.h"
#include "server/lifecycle.h"
#include "server/registry/store.h"
#include "server/schema/catalog.h"
#include "server/schema/openapi_handler.h"
#include "server/schema/patch_schema.h"
#include "server/structured_merge/schema.h"
#include "storage/cacher/cacher.h"
#include "storage/value/transformer.h"

#include <asio/any_io_executor.hpp>

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace kapi::base {
class Logger;
}

namespace kapi::admission { class Chain; }

namespace kapi::apiextensions {

struct CustomResourceServerConfig {
  storage::Interface& backend;
  std::string key_root;  // --etcd-prefix
  asio::any_io_executor executor;
  server::Lifecycle& lifecycle;
  base::Logger& logger;
  const kapi::schema::Catalog& catalog;
  const kapi::schema::PatchSchemas& patch_schemas;
  // The admission chain of custom resources' writes (null: none).
  const admission::Chain* admission = nullptr;
  // The built-in kinds' server-side apply types (ObjectMeta, Scale); none: custom resources track no managedFields.
  std::shared_ptr<const structured_merge::Schema> field_types;
  // Told the Stores of every served custom resource version each time the set changes (the garbage collector
  // follows them): per CRD the storage version's first, each Store keeping what it reads from alive.
  std::function<void(std::vector<std::shared_ptr<registry::Store>>)> served_changed;
  // Which resources are encrypted at rest (--encryption-provider-config): custom resources and CRDs themselves.
  storage::value::ResourceTransformers encryption;
  // The form CRDs are stored in (--storage-media-type); custom resources are JSON, as in kube.
  std::shared_ptr<const storage::value::Transformer> builtin_codec;
};

class CustomResourceServer {
 public:
  explicit CustomResourceServer(CustomResourceServerConfig config);
  ~CustomResourceServer();

  // Serves exactly `crds` from now on (the established ones; terminating ones refuse create). Storage of a CRD
  // version whose group, names and storage version are unchanged is kept; what is no longer served stops.
  asio::awaitable<void> serve_crds(std::vector<Crd> crds);

  // The CRD with this uid is gone from storage: its resources answer 404 at once, before the next serve_crds
  // (kube's crdHandler looks each request's CRD up in its informer cache, which the deletion reaches at once).
  void withdraw(std::string crd_uid);

  // /apis/<group> and everything below it for the groups of served CRDs; other paths get kube's 404.
  asio::awaitable<void> serve(request::Exchange& exchange) const;

  // The web services of the served group versions, for discovery (kept alive by the returned handle).
  discovery::DynamicServices services() const;

  // The Stores of namespaced custom resources (one version per CRD), for the namespace controller.
  std::vector<std::shared_ptr<registry::Store>> namespaced_stores() const;

  // The OpenAPI v3 documents of the served group versions.
  std::shared_ptr<const kapi::schema::DynamicOpenApi> openapi() const;

  // The Store of a served CRD's storage version (or, when that is not served, of another version), by CRD uid:
  // what the finalizer deletes custom resources through; null when the CRD is not served.
  std::shared_ptr<registry::Store> storage_version_store(std::string_view crd_uid) const;

  // The Store of a served custom resource by group, version and kind (a policy's paramKind); it holds the
  // snapshot it came from, so it stays usable while the CRD is withdrawn. Null when not served.
  std::shared_ptr<registry::Store> store_for_kind(std::string_view group, std::string_view version,
                                                  std::string_view kind) const;

  // The custom resources served at group/version, with their schemas: what a policy's type checking resolves
  // them to.
  std::vector<admission::CustomResourceSchema> schemas(std::string_view group, std::string_view version) const;

  asio::awaitable<void> shutdown();

 private:
  struct Storage;   // one CRD version's conversion layer and Cacher, kept across CRD updates
  struct Served;    // one CRD version as served: its Crd, Storage and Store
  struct Snapshot;  // everything served at one moment

  std::shared_ptr<const Snapshot> snapshot() const;
  std::shared_ptr<Storage> make_storage(const Crd& crd, const CrdVersion& version, const registry::Store& probe);

  CustomResourceServerConfig config_;
  mutable std::mutex mutex_;
  std::set<std::string, std::less<>> withdrawn_;  // CRD uids; under mutex_
  std::atomic<bool> any_withdrawn_{false};
  std::shared_ptr<const Snapshot> snapshot_;
};

}  // namespace kapi::apiextensions
