#pragma once
// What an admission plugin is told about a request (k8s.io/apiserver/pkg/admission: Attributes and its
// attributesRecord), and what it may add to the request's answer and audit event.
//
// Lifetime: the handler builds one Attributes per admission step and keeps every pointer in it alive until the
// chain's coroutine completes. `object` is the object about to be written: mutating plugins change it in place;
// validating plugins see the same object as const.
#include "request/request_context.h"

#include <boost/json/object.hpp>

#include <any>
#include <map>
#include <string>
#include <string_view>

namespace kapi::admission {

enum class Operation { Create, Update, Delete, Connect };

// "CREATE", "UPDATE", "DELETE", "CONNECT": as AdmissionReview and kube's messages spell them.
std::string_view to_string(Operation operation);

struct GroupVersionKind {
  std::string group;
  std::string version;
  std::string kind;
  friend bool operator==(const GroupVersionKind&, const GroupVersionKind&) = default;
};

struct GroupVersionResource {
  std::string group;
  std::string version;
  std::string resource;
  friend bool operator==(const GroupVersionResource&, const GroupVersionResource&) = default;
};

class ObjectInterfaces;

// kube's ReinvocationContext: when a plugin changed the object in a way earlier plugins may want to see (a
// webhook's patch), the chain runs its mutating plugins once more. What a plugin keeps between the two passes is
// under its name in `values`.
struct Reinvocation {
  bool is_reinvoke = false;      // this is the second pass
  bool should_reinvoke = false;  // a plugin asked for the second pass
  std::map<std::string, std::any, std::less<>> values;
};

struct Attributes {
  Operation operation = Operation::Create;
  GroupVersionKind kind;          // of `object` (for a subresource, the subresource's kind: Scale, Binding, ...)
  GroupVersionResource resource;  // the resource the request names
  std::string subresource;        // "" for the main resource
  std::string namespace_;         // "" for cluster-scoped resources
  std::string name;               // may be "" on create (generateName)
  // The object to be stored (create, update), null on delete and connect. Mutating plugins change it in place.
  boost::json::object* object = nullptr;
  // The stored object (update, delete), null on create and connect.
  const boost::json::object* old_object = nullptr;
  // The request's CreateOptions / UpdateOptions / DeleteOptions (or a connect's options), as JSON with kind and
  // apiVersion, as AdmissionReview carries them.
  boost::json::object options;
  bool dry_run = false;
  const request::UserInfo* user = nullptr;
  // The request's Warning headers and audit annotations (kube's AddAnnotation / warning.AddWarning); null when
  // nothing is to be recorded (tests).
  request::RequestContext* context = nullptr;
  // The versions the resource is served at and their conversions (matchPolicy Equivalent); null in tests.
  const ObjectInterfaces* object_interfaces = nullptr;
  // Reset by the chain at the start of each mutating step.
  Reinvocation reinvocation;

  const boost::json::object& new_object() const { return *object; }
  bool is_main_resource() const { return subresource.empty(); }
  // Adds `key: value` to the request's audit event. kube refuses to change an annotation a plugin set before;
  // so does this (the first value stays), returning false.
  bool add_annotation(const std::string& key, std::string value) const;
  // Likewise, only when the request's audit level records request bodies (kube's AddAnnotationWithLevel with
  // LevelRequest, for values as large as a request).
  bool add_request_level_annotation(const std::string& key, std::string value) const;
  void add_warning(std::string warning) const;
};

// Whether the request is for `group`/`resource` (any version): how kube's plugins test
// `a.GetResource().GroupResource() != api.Resource("pods")`.
inline bool is_resource(const Attributes& attributes, std::string_view group, std::string_view resource) {
  return attributes.resource.group == group && attributes.resource.resource == resource;
}

}  // namespace kapi::admission
