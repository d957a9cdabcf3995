#pragma once
// What the FieldManagers of built-in kinds and of custom resources (server/apiextensions) are both made of.
#include "server/endpoints/field_managers.h"
#include "server/structured_merge/typed.h"
#include "server/structured_merge/update.h"

#include <boost/json/object.hpp>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kapi::endpoints {

using Conversion = std::function<boost::json::object(boost::json::object)>;

// "v1" or "apps/v1": the apiVersion a FieldManager's managers record.
inline std::string group_version(std::string_view group, std::string_view version) {
  return group.empty() ? std::string(version) : std::string(group) + "/" + std::string(version);
}

// merge.Converter over kapi's conversions: an object reaches another version of its kind through the function
// registered for the pair; a version no function reaches is gone (its managers are dropped).
class ObjectConverter final : public structured_merge::Converter {
 public:
  struct Typed {
    const structured_merge::Schema* schema = nullptr;
    structured_merge::TypeRef type = nullptr;
  };

  void add_type(const std::string& api_version, Typed typed) { types_[api_version] = typed; }
  void add_conversion(const std::string& from, const std::string& to, Conversion conversion) {
    conversions_[{from, to}] = std::move(conversion);
  }

  structured_merge::TypedValue convert(const structured_merge::TypedValue& object, const std::string& api_version) const override {
    auto typed = types_.find(api_version);
    if (typed == types_.end() || !object.value.is_object())
      throw MissingVersion("no conversion to " + api_version);
    const boost::json::object& source = object.value.as_object();
    std::string from;
    if (auto it = source.find("apiVersion"); it != source.end() && it->value().is_string())
      from = it->value().as_string();
    if (from == api_version) return object;
    auto conversion = conversions_.find({from, api_version});
    if (conversion == conversions_.end()) throw MissingVersion("no conversion from " + from + " to " + api_version);
    boost::json::object converted = conversion->second(source);
    return structured_merge::as_typed(std::move(converted), *typed->second.schema, typed->second.type, true);
  }

 private:
  std::map<std::string, Typed> types_;
  std::map<std::pair<std::string, std::string>, Conversion> conversions_;
};


// A set of paths of field names ({"metadata", "labels"}).
structured_merge::Set paths_set(const std::vector<std::vector<std::string>>& paths);
// ".spec.replicas" as a path (strings.Split of the trimmed path, as kube maps a CRD's scale subresource).
structured_merge::Path replicas_path(std::string_view dotted);
// The manager of /scale: autoscaling/v1 Scale objects, nothing reset (ScaleREST is no ResetFieldsStrategy); null
// when `schema` lacks the Scale type.
std::shared_ptr<const fieldmanager::FieldManager> scale_manager(std::shared_ptr<const structured_merge::Schema> schema,
                                                                const schema::Catalog& catalog);

}  // namespace kapi::endpoints
