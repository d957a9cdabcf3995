#pragma once
// One API group version's web service (APIInstaller + APIGroupVersion.InstallREST): the routes under
// /api/v1 or /apis/<group>/<version>, dispatched to the verb handlers of each resource's Store, and the
// APIResourceList at the root path.
#include "request/exchange.h"
#include "server/endpoints/field_managers.h"
#include "server/lifecycle.h"
#include "server/registry/creater.h"
#include "server/registry/store.h"
#include "server/schema/catalog.h"
#include "server/schema/patch_schema.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace kapi::admission {
class Chain;
class ObjectInterfaces;
}

namespace kapi::endpoints {

class GroupVersionService {
 public:
  GroupVersionService(std::string group, std::string version, server::Lifecycle& lifecycle,
                      const schema::Catalog& catalog, const schema::PatchSchemas& patch_schemas)
      : group_(std::move(group)),
        version_(std::move(version)),
        lifecycle_(lifecycle),
        catalog_(catalog),
        patch_schemas_(patch_schemas) {}

  // `field_managers`: what records the resource's managedFields (none when empty).
  void add(registry::Store& store, FieldManagers field_managers = {}) {
    stores_[store.definition().resource] = &store;
    field_managers_[store.definition().resource] = std::move(field_managers);
  }
  void add(const registry::Creater& creater) { creaters_[creater.definition.resource] = &creater; }
  // The admission chain every write through this service passes (set before serving; null: none), and what it
  // knows of the resources' other versions (null: nothing).
  void set_admission(const admission::Chain* chain, const admission::ObjectInterfaces* object_interfaces = nullptr) {
    admission_ = chain;
    object_interfaces_ = object_interfaces;
  }

  const std::string& group() const { return group_; }
  const std::string& version() const { return version_; }
  // "/api/v1" or "/apis/apps/v1".
  std::string root_path() const { return group_.empty() ? "/api/" + version_ : "/apis/" + group_ + "/" + version_; }
  // Every resource served, in name order: its definition and its Store (null for a Creater).
  struct Served {
    const registry::ResourceDefinition* definition;
    const registry::Store* store;
  };
  std::vector<Served> resources() const;

  asio::awaitable<void> serve(request::Exchange& exchange) const;
  request::Handler handler() const {
    return [this](request::Exchange& exchange) { return serve(exchange); };
  }

 private:
  asio::awaitable<void> dispatch(request::Exchange& exchange, const request::RequestInfo& info) const;

  std::string group_;
  std::string version_;
  server::Lifecycle& lifecycle_;
  const schema::Catalog& catalog_;
  const schema::PatchSchemas& patch_schemas_;
  std::map<std::string, registry::Store*, std::less<>> stores_;
  std::map<std::string, const registry::Creater*, std::less<>> creaters_;
  std::map<std::string, FieldManagers, std::less<>> field_managers_;
  const admission::Chain* admission_ = nullptr;
  const admission::ObjectInterfaces* object_interfaces_ = nullptr;
};

}  // namespace kapi::endpoints
