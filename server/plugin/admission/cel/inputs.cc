// kube's newActivation (k8s.io/apiserver/pkg/admission/plugin/cel/activation.go): object and oldObject as
// unstructured content (null when absent), params, the AdmissionRequest and the Namespace (CreateNamespaceObject).
#include "server/plugin/admission/cel/inputs.h"

#include "server/plugin/admission/cel/authorizer.h"
#include "server/plugin/admission/cel/json_value.h"
#include "server/plugin/admission/cel/request.h"

namespace kapi::admission::cel_runtime {

namespace {

// The request's objects outlive its admission, and with it every value read from them.
cel::Value object_value(const boost::json::object* object) {
  return object ? json_to_value(nullptr, *object) : cel::Value(cel::Null{});
}

}  // namespace

Inputs make_inputs(const InputSources& sources) {
  const Attributes& attributes = *sources.attributes;
  Inputs inputs;
  inputs.object = object_value(attributes.object);
  inputs.old_object = object_value(attributes.old_object);
  inputs.params = sources.params ? json_to_value(sources.params, *sources.params) : cel::Value(cel::Null{});
  inputs.request = owned_json_value(admission_request(attributes, sources.matched_resource, sources.matched_kind));
  inputs.namespace_object = sources.namespace_object ? owned_json_value(namespace_object(*sources.namespace_object))
                                                     : cel::Value(cel::Null{});
  if (sources.authorizer) {
    std::shared_ptr<const cel::ext::Authorizer> authorizer = caching_authorizer(*sources.authorizer);
    inputs.authorizer = authorizer_value(authorizer, attributes);
    inputs.resource_authorizer = resource_authorizer_value(authorizer, attributes);
  }
  return inputs;
}

}  // namespace kapi::admission::cel_runtime
