// core/v1 ServiceAccount (pkg/registry/core/serviceaccount), with its token subresource when this server issues
// tokens.
#include "server/apis/resource_storage.h"
#include "server/registry/object_meta.h"

#include <boost/json.hpp>

namespace kapi::apis {
namespace {

namespace json = boost::json;

class ServiceAccountStrategy final : public registry::Strategy {
 public:
  // kube's store for this kind has ReturnDeletedObject: a DELETE answers with the object, not a Status.
  bool return_deleted_object() const override { return true; }
  explicit ServiceAccountStrategy(core::TokenRequestConfig tokens) {
    if (tokens.issuer) subresources_.push_back(core::serviceaccount_token(std::move(tokens)));
  }
  std::vector<registry::CreateSubresource> create_subresources() const override { return subresources_; }
  std::vector<registry::TableColumn> table_columns() const override {
    return {registry::name_column(),
            {"Secrets", "string", "", "Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are allowed to use.", 0},
            registry::age_column()};
  }
  json::array table_cells(const json::object& object) const override {
    std::int64_t count = 0;
    if (auto it = object.find("secrets"); it != object.end() && it->value().is_array())
      count = static_cast<std::int64_t>(it->value().as_array().size());
    return {json::string(registry::meta_string(object, "name")), count, json::string(registry::age_of(object))};
  }

 private:
  std::vector<registry::CreateSubresource> subresources_;
};

}  // namespace

ResourceStorage serviceaccounts(core::TokenRequestConfig tokens) {
  registry::ResourceDefinition definition{.group = "", .version = "v1", .resource = "serviceaccounts",
                                          .kind = "ServiceAccount", .singular = "serviceaccount", .namespaced = true,
                                          .short_names = {"sa"}};
  if (tokens.issuer) definition.subresources = {"token"};
  return {std::move(definition), std::make_shared<ServiceAccountStrategy>(std::move(tokens))};
}

}  // namespace kapi::apis
