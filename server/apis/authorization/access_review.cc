#include "server/apis/authorization/access_review.h"

#include "server/registry/object_meta.h"

#include <boost/json.hpp>

#include <algorithm>
#include <cstdio>
#include <map>

namespace kapi::apis::authorization_reviews {
namespace {

namespace json = boost::json;

// Go's %#v of the internal NonResourceAttributes, as field.Invalid prints the value.
std::string go_non_resource_attributes(const json::object& attributes) {
  return "authorization.NonResourceAttributes{Path:" +
         validation::quoted(registry::string_field(attributes, "path")) +
         ", Verb:" + validation::quoted(registry::string_field(attributes, "verb")) + "}";
}

bool is_zero(const json::value& value) {
  switch (value.kind()) {
    case json::kind::null: return true;
    case json::kind::string: return value.get_string().empty();
    case json::kind::int64: return value.get_int64() == 0;
    case json::kind::uint64: return value.get_uint64() == 0;
    case json::kind::object: return value.get_object().empty();  // Semantic equality: empty is nil
    case json::kind::array: return value.get_array().empty();
    default: return false;
  }
}

std::string go_strings_map(const json::object& metadata, std::string_view key) {
  const json::object& map = object_or_empty(metadata, key);
  if (map.empty()) return "map[string]string(nil)";
  std::map<std::string, std::string> sorted;  // fmt prints maps by key
  for (const auto& [name, value] : map) sorted[name] = value.is_string() ? std::string(value.get_string()) : "";
  std::string out = "map[string]string{";
  for (const auto& [name, value] : sorted)
    out += (out.back() == '{' ? "" : ", ") + validation::quoted(name) + ":" + validation::quoted(value);
  return out + "}";
}

std::string go_finalizers(const json::object& metadata) {
  const json::value* list = metadata.if_contains("finalizers");
  if (!list || !list->is_array() || list->get_array().empty()) return "[]string(nil)";
  std::string out = "[]string{";
  for (const auto& item : list->get_array())
    out += (out.back() == '{' ? "" : ", ") + validation::quoted(item.is_string() ? item.get_string() : "");
  return out + "}";
}

// A metav1.Time as %#v prints it, through time.Time's GoString.
std::string go_time(std::string_view timestamp) {
  static constexpr const char* kMonths[] = {"January", "February", "March",     "April",   "May",      "June",
                                            "July",    "August",   "September", "October", "November", "December"};
  int year = 1, month = 1, day = 1, hour = 0, minute = 0, second = 0;
  if (!timestamp.empty())
    std::sscanf(std::string(timestamp).c_str(), "%d-%d-%dT%d:%d:%d", &year, &month, &day, &hour, &minute, &second);
  month = std::clamp(month, 1, 12);
  return "time.Date(" + std::to_string(year) + ", time." + kMonths[month - 1] + ", " + std::to_string(day) + ", " +
         std::to_string(hour) + ", " + std::to_string(minute) + ", " + std::to_string(second) + ", 0, time.UTC)";
}

// Go's %#v of a metav1.ObjectMeta, as field.Invalid prints it (owner references and managed fields only as nil,
// and a grace period by value where Go prints its address).
std::string go_object_meta(const json::object& metadata) {
  auto text = [&metadata](std::string_view key) { return validation::quoted(registry::string_field(metadata, key)); };
  const json::value* generation = metadata.if_contains("generation");
  const json::value* grace = metadata.if_contains("deletionGracePeriodSeconds");
  const std::string_view deleted = registry::string_field(metadata, "deletionTimestamp");
  const std::string deletion = deleted.empty() ? "<nil>" : go_time(deleted);
  return "v1.ObjectMeta{Name:" + text("name") + ", GenerateName:" + text("generateName") +
         ", Namespace:" + text("namespace") + ", SelfLink:" + text("selfLink") + ", UID:" + text("uid") +
         ", ResourceVersion:" + text("resourceVersion") + ", Generation:" +
         (generation && generation->is_int64() ? std::to_string(generation->get_int64()) : "0") +
         ", CreationTimestamp:" + go_time(registry::string_field(metadata, "creationTimestamp")) +
         ", DeletionTimestamp:" + deletion + ", DeletionGracePeriodSeconds:" +
         (grace && grace->is_int64() ? "(*int64)(" + std::to_string(grace->get_int64()) + ")" : "(*int64)(nil)") +
         ", Labels:" + go_strings_map(metadata, "labels") + ", Annotations:" + go_strings_map(metadata, "annotations") +
         ", OwnerReferences:[]v1.OwnerReference(nil), Finalizers:" + go_finalizers(metadata) +
         ", ManagedFields:[]v1.ManagedFieldsEntry(nil)}";
}

}  // namespace

validation::ErrorList validate_empty_metadata(const json::object& review, bool namespaced) {
  const json::object& metadata = object_or_empty(review, "metadata");
  const bool empty = std::all_of(metadata.begin(), metadata.end(), [namespaced](const json::key_value_pair& field) {
    return field.key() == "managedFields" || (namespaced && field.key() == "namespace") || is_zero(field.value());
  });
  if (empty) return {};
  return {validation::invalid_value(validation::Path("metadata"), go_object_meta(metadata), "must be empty")};
}

registry::ResourceDefinition review_definition(std::string resource, std::string kind, bool namespaced) {
  std::string singular = resource.substr(0, resource.size() - 1);
  return {.group = "authorization.k8s.io", .version = "v1", .resource = std::move(resource), .kind = std::move(kind),
          .singular = std::move(singular), .namespaced = namespaced, .verbs = {"create"}};
}

authorization::Attributes attributes_from(const json::object& spec, request::UserInfo user) {
  authorization::Attributes attributes;
  attributes.user = std::move(user);
  if (auto it = spec.find("resourceAttributes"); it != spec.end() && it->value().is_object()) {
    const json::object& resource = it->value().as_object();
    attributes.resource_request = true;
    attributes.verb = registry::string_field(resource, "verb");
    attributes.namespace_ = registry::string_field(resource, "namespace");
    attributes.api_group = registry::string_field(resource, "group");
    attributes.api_version = registry::string_field(resource, "version");
    if (attributes.api_version.empty()) attributes.api_version = "*";
    attributes.resource = registry::string_field(resource, "resource");
    attributes.subresource = registry::string_field(resource, "subresource");
    attributes.name = registry::string_field(resource, "name");
    return attributes;
  }
  const json::object& non_resource = object_or_empty(spec, "nonResourceAttributes");
  attributes.path = registry::string_field(non_resource, "path");
  attributes.verb = registry::string_field(non_resource, "verb");
  return attributes;
}

validation::ErrorList validate_attributes(const json::object& spec) {
  const bool resource = spec.contains("resourceAttributes") && !spec.at("resourceAttributes").is_null();
  const bool non_resource = spec.contains("nonResourceAttributes") && !spec.at("nonResourceAttributes").is_null();
  const validation::Path path("spec");
  validation::ErrorList errors;
  if (resource && non_resource)
    errors.push_back(validation::invalid_value(path.child("nonResourceAttributes"),
                                               go_non_resource_attributes(object_or_empty(spec, "nonResourceAttributes")),
                                               "cannot be specified in combination with resourceAttributes"));
  if (!resource && !non_resource)
    errors.push_back(validation::invalid(path.child("resourceAttributes"), "null",
                                         "exactly one of nonResourceAttributes or resourceAttributes must be specified"));
  return errors;
}

// ValidateSubjectAccessReviewSpec: the attributes, and someone to ask about.
validation::ErrorList validate_subject_spec(const json::object& spec) {
  validation::ErrorList errors = validate_attributes(spec);
  const json::value* groups = spec.if_contains("groups");
  const std::string_view user = registry::string_field(spec, "user");
  if (user.empty() && (!groups || !groups->is_array() || groups->as_array().empty()))
    errors.push_back(validation::invalid(validation::Path("spec").child("user"), user,
                                         "at least one of user or group must be specified"));
  return errors;
}

// The user the spec names, exactly as given (no system:authenticated added).
request::UserInfo subject_of(const json::object& spec) {
  request::UserInfo user{std::string(registry::string_field(spec, "user")), std::string(registry::string_field(spec, "uid")),
                         {}, {}};
  if (const json::value* groups = spec.if_contains("groups"); groups && groups->is_array())
    for (const json::value& group : groups->as_array())
      if (group.is_string()) user.groups.emplace_back(group.as_string());
  for (const auto& [key, values] : object_or_empty(spec, "extra")) {
    auto& extra = user.extra[std::string(key)];
    if (values.is_array())
      for (const json::value& value : values.as_array())
        if (value.is_string()) extra.emplace_back(value.as_string());
  }
  return user;
}

json::object access_status(const authorization::Result& result) {
  json::object status{{"allowed", result.decision == authorization::Decision::Allow}};
  if (result.decision == authorization::Decision::Deny) status["denied"] = true;
  if (!result.reason.empty()) status["reason"] = result.reason;
  if (!result.error.empty()) status["evaluationError"] = result.error;
  return status;
}

}  // namespace kapi::apis::authorization_reviews
