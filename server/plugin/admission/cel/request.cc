// kube's CreateAdmissionRequest and CreateNamespaceObject (k8s.io/apiserver/pkg/admission/plugin/cel/condition.go)
// as runtime.DefaultUnstructuredConverter leaves them: admission/v1 AdmissionRequest's JSON names, omitempty
// members left out when empty, object and oldObject null.
#include "server/plugin/admission/cel/request.h"

#include <array>
#include <string_view>

namespace kapi::admission::cel_runtime {
namespace {

namespace json = boost::json;

json::object gvk_object(const GroupVersionKind& kind) {
  return {{"group", kind.group}, {"version", kind.version}, {"kind", kind.kind}};
}

json::object gvr_object(const GroupVersionResource& resource) {
  return {{"group", resource.group}, {"version", resource.version}, {"resource", resource.resource}};
}

json::object user_info(const request::UserInfo* user) {
  json::object out;
  if (!user) return out;
  if (!user->name.empty()) out["username"] = user->name;
  if (!user->uid.empty()) out["uid"] = user->uid;
  if (!user->groups.empty()) {
    json::array groups;
    for (const std::string& group : user->groups) groups.emplace_back(group);
    out["groups"] = std::move(groups);
  }
  if (!user->extra.empty()) {
    json::object extra;
    for (const auto& [key, values] : user->extra) {
      json::array items;
      for (const std::string& value : values) items.emplace_back(value);
      extra[key] = std::move(items);
    }
    out["extra"] = std::move(extra);
  }
  return out;
}

}  // namespace

json::object admission_request(const Attributes& attributes, const GroupVersionResource& matched_resource,
                               const GroupVersionKind& matched_kind) {
  json::object request;
  request["uid"] = "";
  request["kind"] = gvk_object(matched_kind);
  request["resource"] = gvr_object(matched_resource);
  if (!attributes.subresource.empty()) request["subResource"] = attributes.subresource;
  request["requestKind"] = gvk_object(attributes.kind);
  request["requestResource"] = gvr_object(attributes.resource);
  if (!attributes.subresource.empty()) request["requestSubResource"] = attributes.subresource;
  if (!attributes.name.empty()) request["name"] = attributes.name;
  if (!attributes.namespace_.empty()) request["namespace"] = attributes.namespace_;
  request["operation"] = to_string(attributes.operation);
  request["userInfo"] = user_info(attributes.user);
  request["object"] = nullptr;
  request["oldObject"] = nullptr;
  request["dryRun"] = attributes.dry_run;
  if (attributes.options.empty()) request["options"] = nullptr;
  else request["options"] = attributes.options;
  return request;
}

json::object namespace_object(const json::object& stored_namespace) {
  static constexpr std::array<std::string_view, 12> kMetadata{
      "name",         "generateName",      "namespace",         "uid",
      "resourceVersion", "generation",     "creationTimestamp", "deletionTimestamp",
      "deletionGracePeriodSeconds", "labels", "annotations",   "finalizers"};
  json::object out;
  json::object metadata;
  if (const json::value* stored = stored_namespace.if_contains("metadata"); stored && stored->is_object())
    for (std::string_view key : kMetadata)
      if (const json::value* value = stored->as_object().if_contains(key)) metadata[key] = *value;
  out["metadata"] = std::move(metadata);
  const json::value* spec = stored_namespace.if_contains("spec");
  out["spec"] = spec ? *spec : json::object();
  const json::value* status = stored_namespace.if_contains("status");
  out["status"] = status ? *status : json::object();
  return out;
}

}  // namespace kapi::admission::cel_runtime
