#include "server/apis/authorization/access_review.h"

#include "server/registry/object_meta.h"

#include <boost/json.hpp>

namespace kapi::apis::authorization_reviews {
namespace {

namespace json = boost::json;

// Go's %#v of the internal NonResourceAttributes, as field.Invalid prints the value.
std::string go_non_resource_attributes(const json::object& attributes) {
  return "authorization.NonResourceAttributes{Path:" +
         validation::quoted(registry::string_field(attributes, "path")) +
         ", Verb:" + validation::quoted(registry::string_field(attributes, "verb")) + "}";
}

}  // namespace

registry::ResourceDefinition review_definition(std::string resource, std::string kind, bool namespaced) {
  std::string singular = resource.substr(0, resource.size() - 1);
  return {.group = "authorization.k8s.io", .version = "v1", .resource = std::move(resource), .kind = std::move(kind),
          .singular = std::move(singular), .namespaced = namespaced, .verbs = {"create"}};
}

const json::object& object_at(const json::object& object, std::string_view key) {
  static const json::object kEmpty;
  auto it = object.find(key);
  return it != object.end() && it->value().is_object() ? it->value().as_object() : kEmpty;
}

authorization::Attributes attributes_from(const json::object& spec, filters::UserInfo user) {
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
  const json::object& non_resource = object_at(spec, "nonResourceAttributes");
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
                                               go_non_resource_attributes(object_at(spec, "nonResourceAttributes")),
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
filters::UserInfo subject_of(const json::object& spec) {
  filters::UserInfo user{std::string(registry::string_field(spec, "user")), std::string(registry::string_field(spec, "uid")),
                         {}, {}};
  if (const json::value* groups = spec.if_contains("groups"); groups && groups->is_array())
    for (const json::value& group : groups->as_array())
      if (group.is_string()) user.groups.emplace_back(group.as_string());
  for (const auto& [key, values] : object_at(spec, "extra")) {
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
  return status;
}

}  // namespace kapi::apis::authorization_reviews
