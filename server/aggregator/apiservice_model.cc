#include "server/aggregator/apiservice_model.h"

#include "base/base64.h"
#include "server/registry/json_fields.h"
#include "server/registry/object_meta.h"

#include <boost/json.hpp>

namespace kapi::aggregator {

namespace json = boost::json;
using registry::fields::int_at;
using registry::fields::object_at;

ApiService parse_apiservice(const json::object& apiservice) {
  ApiService out;
  out.name = std::string(registry::meta_string(apiservice, "name"));
  if (const json::object* spec = object_at(apiservice, "spec")) {
    out.group = std::string(registry::string_field(*spec, "group"));
    out.version = std::string(registry::string_field(*spec, "version"));
    out.group_priority = static_cast<int>(int_at(*spec, "groupPriorityMinimum").value_or(0));
    out.version_priority = static_cast<int>(int_at(*spec, "versionPriority").value_or(0));
    if (const json::object* service = object_at(*spec, "service")) {
      out.service = ServiceReference{std::string(registry::string_field(*service, "namespace")),
                                     std::string(registry::string_field(*service, "name")),
                                     static_cast<std::int32_t>(int_at(*service, "port").value_or(443))};
    }
    out.ca_bundle_pem = base::base64_decode(registry::string_field(*spec, "caBundle")).value_or("");
    if (const json::value* insecure = spec->if_contains("insecureSkipTLSVerify"); insecure && insecure->is_bool())
      out.insecure_skip_tls_verify = insecure->as_bool();
  }
  if (const json::object* status = object_at(apiservice, "status"))
    if (const json::value* conditions = status->if_contains("conditions"); conditions && conditions->is_array())
      for (const auto& condition : conditions->as_array())
        if (condition.is_object() && registry::string_field(condition.as_object(), "type") == "Available")
          out.available = registry::string_field(condition.as_object(), "status") == "True";
  return out;
}

bool set_available_condition(json::object& apiservice, std::string_view status, std::string_view reason,
                             std::string_view message) {
  json::value& status_value = apiservice["status"];
  if (!status_value.is_object()) status_value.emplace_object();
  json::value& conditions = status_value.as_object()["conditions"];
  if (!conditions.is_array()) conditions.emplace_array();
  for (auto& item : conditions.as_array()) {
    if (!item.is_object() || registry::string_field(item.as_object(), "type") != "Available") continue;
    json::object& condition = item.as_object();
    if (registry::string_field(condition, "status") == status && registry::string_field(condition, "reason") == reason &&
        registry::string_field(condition, "message") == message)
      return false;
    if (registry::string_field(condition, "status") != status) condition["lastTransitionTime"] = registry::rfc3339_now();
    condition["status"] = status;
    condition["reason"] = reason;
    condition["message"] = message;
    return true;
  }
  conditions.as_array().push_back(json::object{{"type", "Available"},
                                               {"status", status},
                                               {"lastTransitionTime", registry::rfc3339_now()},
                                               {"reason", reason},
                                               {"message", message}});
  return true;
}

}  // namespace kapi::aggregator
