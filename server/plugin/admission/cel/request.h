#pragma once
// The `request` and `namespaceObject` values of admission expressions (k8s.io/apiserver/pkg/admission/plugin/cel:
// CreateAdmissionRequest and CreateNamespaceObject, converted to unstructured content as kube converts them).
#include "server/admission/attributes.h"

#include <boost/json/object.hpp>

namespace kapi::admission::cel_runtime {

// The AdmissionRequest an expression sees: `resource` and `kind` are those the policy or webhook matched (an
// equivalent resource under matchPolicy Equivalent), requestResource and requestKind those of the request.
boost::json::object admission_request(const Attributes& attributes, const GroupVersionResource& matched_resource,
                                      const GroupVersionKind& matched_kind);

// The Namespace an expression sees: its metadata without managedFields, ownerReferences and the like, its spec
// and status.
boost::json::object namespace_object(const boost::json::object& stored_namespace);

}  // namespace kapi::admission::cel_runtime
