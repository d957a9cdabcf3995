// coordination.k8s.io/v1 Lease (pkg/registry/coordination/lease): what node heartbeats and leader election write.
#include "server/apis/resource_storage.h"
#include "server/registry/object_meta.h"

#include <boost/json.hpp>

namespace kapi::apis {
namespace {

namespace json = boost::json;

class LeaseStrategy final : public registry::Strategy {
 public:
  std::vector<registry::TableColumn> table_columns() const override {
    return {registry::name_column(),
            {"Holder", "string", "", "holderIdentity contains the identity of the holder of a current lease.", 0},
            registry::age_column()};
  }
  json::array table_cells(const json::object& object) const override {
    std::string holder;
    if (auto it = object.find("spec"); it != object.end() && it->value().is_object())
      holder = registry::string_field(it->value().as_object(), "holderIdentity");
    return {json::string(registry::meta_string(object, "name")), json::string(holder),
            json::string(registry::age_of(object))};
  }
};

}  // namespace

ResourceStorage leases() {
  registry::ResourceDefinition definition{.group = "coordination.k8s.io", .version = "v1", .resource = "leases",
                                          .kind = "Lease", .singular = "lease", .namespaced = true};
  return {std::move(definition), std::make_shared<LeaseStrategy>()};
}

}  // namespace kapi::apis
