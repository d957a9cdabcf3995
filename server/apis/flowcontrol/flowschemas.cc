// flowcontrol.apiserver.k8s.io/v1 FlowSchema (pkg/registry/flowcontrol/flowschema, SetDefaults_FlowSchemaSpec,
// ValidateFlowSchema, printFlowSchema): how API Priority and Fairness classifies requests into priority levels.
#include "server/apis/flowcontrol/flowcontrol_validation.h"
#include "server/apis/resource_storage.h"
#include "server/registry/json_fields.h"
#include "server/registry/object_meta.h"

#include <boost/json.hpp>

#include <algorithm>
#include <cstdint>

namespace kapi::apis {
namespace {

namespace json = boost::json;
using registry::fields::object_or_empty;

std::int64_t matching_precedence(const json::object& flow_schema) {
  const json::value* value = object_or_empty(flow_schema, "spec").if_contains("matchingPrecedence");
  if (value && value->is_int64()) return value->get_int64();
  if (value && value->is_uint64()) return static_cast<std::int64_t>(value->get_uint64());
  return 0;
}

class FlowSchemaStrategy final : public registry::Strategy {
 public:
  // PrepareForCreate clears the status; the decoder's v1 defaults come here, as kapi decodes without them.
  void apply_scheme_defaults(json::object& object) const override { apf::apply_flow_schema_defaults(object); }
  void prepare_for_create(json::object& object) const override {
    object["status"] = json::object();
    apf::apply_flow_schema_defaults(object);
  }
  // PrepareForUpdate keeps the stored status (generation follows spec changes through tracks_generation).
  void prepare_for_update(json::object& object, const json::object& old) const override {
    apf::apply_flow_schema_defaults(object);
    if (const json::value* status = old.if_contains("status")) object["status"] = *status;
    else object.erase("status");
  }
  validation::ErrorList validate(const json::object& object) const override {
    return apf::validate_flow_schema(object);
  }
  bool tracks_generation() const override { return true; }

  std::vector<registry::TableColumn> table_columns() const override {
    return {registry::name_column(),
            {"PriorityLevel", "string", "",
             "`name` is the name of the priority level configuration being referenced Required.", 0},
            {"MatchingPrecedence", "string", "",
             "`matchingPrecedence` is used to choose among the FlowSchemas that match a given request. The chosen "
             "FlowSchema is among those with the numerically lowest (which we take to be logically highest) "
             "MatchingPrecedence.  Each MatchingPrecedence value must be ranged in [1,10000].\nNote that if the "
             "precedence is not specified, it will be set to 1000 as default.",
             0},
            {"DistinguisherMethod", "string", "",
             "`distinguisherMethod` defines how to compute the flow distinguisher for requests that match this "
             "schema.\n`nil` specifies that the distinguisher is disabled and thus will always be the empty string.",
             0},
            registry::age_column(),
            {"MissingPL", "string", "", "references a broken or non-existent PriorityLevelConfiguration", 0}};
  }
  json::array table_cells(const json::object& object) const override {
    const json::object& spec = object_or_empty(object, "spec");
    const json::object& method = object_or_empty(spec, "distinguisherMethod");
    std::string distinguisher = spec.contains("distinguisherMethod") && spec.at("distinguisherMethod").is_object()
                                    ? std::string(registry::string_field(method, "type"))
                                    : "<none>";
    // MISSINGPL: the status of the Dangling condition the APF controller keeps, "?" before it has.
    std::string missing = "?";
    if (const json::value* conditions = object_or_empty(object, "status").if_contains("conditions");
        conditions && conditions->is_array()) {
      for (const auto& condition : conditions->get_array()) {
        if (!condition.is_object() || registry::string_field(condition.get_object(), "type") != "Dangling") continue;
        missing = registry::string_field(condition.get_object(), "status");
        break;
      }
    }
    return {json::string(registry::meta_string(object, "name")),
            json::string(registry::string_field(object_or_empty(spec, "priorityLevelConfiguration"), "name")),
            matching_precedence(object),
            json::string(distinguisher),
            json::string(registry::age_of(object)),
            json::string(missing)};
  }
  // printFlowSchemaList sorts as the classifier reads them: by matching precedence, then by name.
  void order_table_rows(std::vector<json::object>& objects) const override {
    std::stable_sort(objects.begin(), objects.end(), [](const json::object& a, const json::object& b) {
      const std::int64_t pa = matching_precedence(a), pb = matching_precedence(b);
      if (pa != pb) return pa < pb;
      return registry::meta_string(a, "name") < registry::meta_string(b, "name");
    });
  }
};

}  // namespace

ResourceStorage flowschemas() {
  // As kube's: cluster-scoped, no short name, no category, a status subresource.
  registry::ResourceDefinition definition{.group = "flowcontrol.apiserver.k8s.io", .version = "v1",
                                          .resource = "flowschemas", .kind = "FlowSchema", .singular = "flowschema",
                                          .namespaced = false, .subresources = {"status"}};
  return {std::move(definition), std::make_shared<FlowSchemaStrategy>()};
}

}  // namespace kapi::apis
