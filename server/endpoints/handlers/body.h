#pragma once
// The body of a create (POST) or update (PUT): decoded by its Content-Type as kube's serializers do (JSON,
// YAML converted to JSON as sigs.k8s.io/yaml converts it, protobuf transcoded), then conformed to the kind's schema
// with fieldValidation deciding what duplicate and unknown fields do.
#include "server/endpoints/handlers/handlers.h"
#include "server/endpoints/negotiation.h"

#include <boost/json/object.hpp>

#include <string>
#include <vector>

namespace kapi::endpoints::handlers {

struct DecodedBody {
  boost::json::object object;
  BodyFormat format = BodyFormat::Json;
  // A YAML body's repeated keys as go-yaml's strict mode words them ("line 5: key \"name\" already set in map").
  std::vector<std::string> yaml_duplicate_keys;
};

// Throws ApiError 415 for a Content-Type kapi does not read and 400, in kube's words, for a body that does not
// decode (a YAML body: "the object provided is unrecognized (must be of type ConfigMap): yaml: line 3: ...").
DecodedBody decode_body(const BodyTarget& target);

// conform_body for a decoded create or update body: unknown fields dropped, +defaults filled, wrong types → 400;
// then the strict decoding errors (duplicate fields of a JSON body in document order with the unknown ones; a
// YAML body's repeated keys first) fail a Strict request and become Warning headers under Warn.
void conform_decoded(const BodyTarget& target, DecodedBody& body);

}  // namespace kapi::endpoints::handlers
