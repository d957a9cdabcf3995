#pragma once
// What admission knows of the versions a resource is served at (k8s.io/apiserver/pkg/admission.ObjectInterfaces:
// runtime.EquivalentResourceMapper and the ObjectConvertor), for matchPolicy Equivalent: a webhook or policy whose
// rules name another version of the request's resource is called with the request converted to that version.
//
// kube keys equivalence by storage prefix: resources kept in one place are one resource (autoscaling/v1 and v2
// HorizontalPodAutoscalers, core/v1 and events.k8s.io/v1 Events, every served version of a CRD). The server
// that serves the resources registers them once (the built-in APIs at start, the API extensions server with
// each set of CRDs it serves); afterwards the registry is read-only, shared by every request thread.
#include "server/admission/attributes.h"

#include <boost/json/object.hpp>

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace kapi::admission {

struct EquivalentResource {
  GroupVersionResource resource;
  GroupVersionKind kind;  // of the (sub)resource at that version (autoscaling/v1 Scale for any /scale)
};

// runtime.equivalentResourceRegistry with the conversions between the registered versions.
class ObjectInterfaces {
 public:
  using Conversion = std::function<boost::json::object(boost::json::object)>;

  struct Version {
    GroupVersionResource resource;
    GroupVersionKind kind;
    std::string storage;  // the storage prefix: versions with the same one are equivalent
    // Subresources and the kind each takes (a status the resource's kind, scale autoscaling/v1 Scale).
    std::map<std::string, GroupVersionKind, std::less<>> subresources;
    // An object of `kind` to the storage version's kind and back; both empty for the storage version itself.
    Conversion to_storage;
    Conversion from_storage;
    // kube's ObjectDefaulter for `kind`: what decoding would fill in; empty when nothing.
    std::function<void(boost::json::object&)> defaults;
  };

  void add(Version version);

  // EquivalentResourcesFor: the (sub)resource at every registered version, the request's own included, in the
  // order they were registered. Empty for a resource never registered.
  std::vector<EquivalentResource> equivalents(const GroupVersionResource& resource, std::string_view subresource) const;

  // `object` (of kind `from`) as kind `to`, through the storage version. Throws std::runtime_error with kube's
  // wording when either kind is not registered.
  boost::json::object convert(boost::json::object object, const GroupVersionKind& from,
                              const GroupVersionKind& to) const;

  // Fills `object`'s defaults as decoding an object of `kind` would (nothing for a kind not registered).
  void default_object(boost::json::object& object, const GroupVersionKind& kind) const;

 private:
  const Version* find_kind(const GroupVersionKind& kind) const;

  std::vector<Version> versions_;
};

}  // namespace kapi::admission
