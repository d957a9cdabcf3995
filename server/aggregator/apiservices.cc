// apiregistration.k8s.io/v1 APIService (kube-aggregator's pkg/registry/apiservice, pkg/apis/apiregistration/
// validation and v1/defaults.go): the definition, strategy, validation and printer.
#include "server/aggregator/apiservices.h"

#include "base/name_validation.h"
#include "server/registry/json_fields.h"
#include "server/registry/object_meta.h"
#include "server/registry/table.h"

#include <boost/json.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kapi::aggregator {
namespace {

namespace json = boost::json;
using validation::ErrorList;
using validation::Path;
using namespace registry::fields;

// The length of a []byte field, which JSON carries in standard base64 with padding.
std::size_t base64_length(const json::object* object, std::string_view key) {
  const std::string_view text = string_at(object, key);
  std::size_t padding = 0;
  while (padding < text.size() && padding < 2 && text[text.size() - 1 - padding] == '=') ++padding;
  return text.size() / 4 * 3 + (text.size() % 4 ? text.size() % 4 - 1 : 0) - padding;
}

// spec.service as the internal type sees it: nil when absent or null.
const json::object* service_of(const json::object& apiservice) {
  const json::object* spec = object_at(apiservice, "spec");
  return spec ? object_at(*spec, "service") : nullptr;
}

json::object local_available_condition() {
  return {{"type", "Available"},
          {"status", "True"},
          {"lastTransitionTime", registry::rfc3339_now()},
          {"reason", "Local"},
          {"message", "Local APIServices are always available"}};
}

class APIServiceStrategy final : public registry::Strategy {
 public:
  void prepare_for_create(json::object& object) const override {
    apply_apiservice_defaults(object);
    object["status"] = json::object();
    // kube marks a local APIService available immediately; the availability controller keeps remote ones.
    if (!service_of(object)) object["status"].get_object()["conditions"] = json::array{local_available_condition()};
  }
  void prepare_for_update(json::object& object, const json::object& old) const override {
    apply_apiservice_defaults(object);
    if (const json::value* status = old.if_contains("status")) object["status"] = *status;
    else object.erase("status");
  }
  // The Store runs this for the main resource and for apiservices/status alike; on a status write the spec is
  // the stored one (the status handler keeps it), so the spec checks pass as they did when it was stored.
  validation::ErrorList validate(const json::object& object) const override {
    ErrorList errors = validate_apiservice(object);
    ErrorList status = validate_apiservice_status(object);
    errors.insert(errors.end(), status.begin(), status.end());
    return errors;
  }
  // Names are path segments ("v1.", "v1beta1.metrics.k8s.io"); validate adds the version.group rule.
  bool name_is_path_segment() const override { return true; }

  std::vector<registry::TableColumn> table_columns() const override {
    return {registry::name_column(),
            {"Service", "string", "", "The reference to the service that hosts this API endpoint.", 0},
            {"Available", "string", "", "Whether this service is available.", 0},
            registry::age_column()};
  }
  json::array table_cells(const json::object& object) const override {
    std::string service = "Local";
    if (const json::object* reference = service_of(object))
      service = std::string(string_at(reference, "namespace")) + "/" + std::string(string_at(reference, "name"));
    std::string available = "Unknown";
    const json::object* status = object_at(object, "status");
    const json::value* conditions = status ? status->if_contains("conditions") : nullptr;
    if (conditions && conditions->is_array()) {
      for (const auto& value : conditions->get_array()) {
        if (!value.is_object() || registry::string_field(value.get_object(), "type") != "Available") continue;
        const json::object& condition = value.get_object();
        std::string condition_status(registry::string_field(condition, "status"));
        std::string_view reason = registry::string_field(condition, "reason");
        available = condition_status == "True" || reason.empty()
                        ? condition_status
                        : condition_status + " (" + std::string(reason) + ")";
        break;
      }
    }
    return {json::string(registry::meta_string(object, "name")), json::string(service), json::string(available),
            json::string(registry::age_of(object))};
  }
};

}  // namespace

registry::ResourceDefinition apiservices_definition() {
  return {.group = "apiregistration.k8s.io", .version = "v1", .resource = "apiservices", .kind = "APIService",
          .singular = "apiservice", .namespaced = false, .categories = {"api-extensions"},
          .storage_resource = "apiregistration.k8s.io/apiservices", .subresources = {"status"}};
}

std::shared_ptr<const registry::Strategy> apiservices_strategy() {
  return std::make_shared<APIServiceStrategy>();
}

void apply_apiservice_defaults(json::object& apiservice) {
  json::value* spec = apiservice.if_contains("spec");
  if (!spec || !spec->is_object()) return;
  json::value* service = spec->get_object().if_contains("service");
  if (!service || !service->is_object()) return;
  json::value* port = service->get_object().if_contains("port");
  if (!port || port->is_null()) service->get_object()["port"] = 443;
}

ErrorList validate_apiservice(const json::object& apiservice) {
  ErrorList errors;
  const json::object* spec = object_at(apiservice, "spec");
  const std::string group(string_at(spec, "group"));
  const std::string version(string_at(spec, "version"));

  // ValidateObjectMeta's name function: the path segment rules (the Store's), then "version.group".
  const std::string required_name = version + "." + group;
  std::string_view name = registry::meta_string(apiservice, "name");
  if (!name.empty() && validation::is_valid_path_segment_name(name).empty() && name != required_name)
    errors.push_back(validation::invalid(Path("metadata").child("name"), name,
                                         "must be `spec.version+\".\"+spec.group`: " + validation::quoted(required_name)));

  // Only the legacy core group's v1 may have an empty group.
  if (group.empty() && version != "v1")
    errors.push_back(validation::required(Path("spec").child("group"),
                                          "only v1 may have an empty group and it better be legacy kube"));
  if (!group.empty())
    for (const auto& message : validation::is_dns1123_subdomain(group))
      errors.push_back(validation::invalid(Path("spec").child("group"), group, message));
  for (const auto& message : validation::is_dns1035_label(version))
    errors.push_back(validation::invalid(Path("spec").child("version"), version, message));

  const std::int64_t group_priority = int_or_zero(spec, "groupPriorityMinimum");
  if (group_priority <= 0 || group_priority > 20000)
    errors.push_back(validation::invalid_value(Path("spec").child("groupPriorityMinimum"),
                                               std::to_string(group_priority), "must be positive and less than 20000"));
  const std::int64_t version_priority = int_or_zero(spec, "versionPriority");
  if (version_priority <= 0 || version_priority > 1000)
    errors.push_back(validation::invalid_value(Path("spec").child("versionPriority"),
                                               std::to_string(version_priority), "must be positive and less than 1000"));

  const bool insecure = bool_at(spec, "insecureSkipTLSVerify");
  const std::size_t ca_bundle = base64_length(spec, "caBundle");
  const json::object* service = service_of(apiservice);
  if (!service) {
    if (ca_bundle != 0)
      errors.push_back(validation::invalid(Path("spec").child("caBundle"), std::to_string(ca_bundle) + " bytes",
                                           "local APIServices may not have a caBundle"));
    if (insecure)
      errors.push_back(validation::invalid_value(Path("spec").child("insecureSkipTLSVerify"), "true",
                                                 "local APIServices may not have insecureSkipTLSVerify"));
    return errors;
  }
  const Path service_path = Path("spec").child("service");
  if (string_at(service, "namespace").empty()) errors.push_back(validation::required(service_path.child("namespace")));
  if (string_at(service, "name").empty()) errors.push_back(validation::required(service_path.child("name")));
  // The internal port is an int32 the v1 default made 443 when absent.
  const json::value* port_value = service->if_contains("port");
  const std::int64_t port = port_value && !port_value->is_null() ? int_or_zero(service, "port") : 443;
  if (port < 1 || port > 65535)
    errors.push_back(validation::invalid_value(service_path.child("port"), std::to_string(port),
                                               "port is not valid: must be between 1 and 65535, inclusive"));
  if (insecure && ca_bundle > 0)
    errors.push_back(validation::invalid_value(Path("spec").child("insecureSkipTLSVerify"), "true",
                                               "may not be true if caBundle is present"));
  return errors;
}

ErrorList validate_apiservice_status(const json::object& apiservice) {
  ErrorList errors;
  const json::object* status = object_at(apiservice, "status");
  const json::value* conditions = status ? status->if_contains("conditions") : nullptr;
  if (!conditions || !conditions->is_array()) return errors;
  const Path path = Path("status").child("conditions");
  std::size_t i = 0;
  for (const auto& condition : conditions->get_array()) {
    std::string value = condition.is_object() ? std::string(registry::string_field(condition.get_object(), "status"))
                                              : std::string();
    if (value != "True" && value != "False" && value != "Unknown")
      errors.push_back(validation::not_supported(path.index(i).child("status"), value, {"True", "False", "Unknown"}));
    ++i;
  }
  return errors;
}

}  // namespace kapi::aggregator
