#pragma once
// The root variables of an admission expression for one request (kube's newActivation): the object and old object
// as the request has them, params, the AdmissionRequest, the namespace, and the authorizer of the requesting user.
#include "server/admission/attributes.h"
#include "server/plugin/admission/cel/evaluation.h"

#include <boost/json/object.hpp>

#include <memory>

namespace kapi::authorization { class Authorizer; }

namespace kapi::admission::cel_runtime {

struct InputSources {
  const Attributes* attributes = nullptr;
  GroupVersionResource matched_resource;
  GroupVersionKind matched_kind;
  // The param object, null when none (a policy without paramKind or paramRef).
  std::shared_ptr<const boost::json::object> params;
  // The request's namespace as stored, null for cluster-scoped requests.
  std::shared_ptr<const boost::json::object> namespace_object;
  // Binds `authorizer` and `authorizer.requestResource` when set.
  const authorization::Authorizer* authorizer = nullptr;
};

Inputs make_inputs(const InputSources& sources);

}  // namespace kapi::admission::cel_runtime
