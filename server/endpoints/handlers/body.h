#pragma once
// Request bodies. The body of a create (POST) or update (PUT): decoded by its Content-Type as kube's serializers do
// (JSON, YAML converted to JSON as sigs.k8s.io/yaml converts it, protobuf transcoded), then conformed to the kind's
// schema with fieldValidation deciding what duplicate and unknown fields do; and the bodies of other kinds than the
// resource's (DeleteOptions, a pod's Binding), and server-side apply configurations. Every decoding of a body is here, in one file the body_decoding fuzz
// target (tests/fuzz/body_decoding_fuzz.cc) compiles without the rest of the handlers.
#include "server/endpoints/handlers/handlers.h"
#include "server/endpoints/negotiation.h"
#include "server/schema/transcoder.h"

#include <boost/json/object.hpp>

#include <string>
#include <string_view>
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

// A JSON body as a JSON object; throws ApiError 400 when it is not one.
boost::json::object decode_object(std::string_view body);
// A protobuf create or update body as a JSON object: the envelope transcoded (its typeMeta defaulting to the
// resource's kind). Throws ApiError 400, worded as kube's transformDecodeError, for a body that does not decode or
// names another kind or version.
boost::json::object decode_protobuf_body(const BodyTarget& target);
// A body of another kind than the resource's (a DeleteOptions, a pod's Binding) as JSON, from JSON or protobuf.
boost::json::object decode_body_as(const Scope& scope, const schema::TypeMeta& expected);
// A DELETE body (metav1.DeleteOptions) as JSON, from JSON or protobuf.
boost::json::object decode_delete_options(const Scope& scope);
// A server-side apply body (application/apply-patch+yaml): YAML or JSON, decoded as yaml.Unmarshal decodes into a
// map[string]interface{} (an empty document is an empty configuration). Throws ApiError 400 in kube's words
// ("error decoding YAML: error converting YAML to JSON: yaml: line 2: ...").
struct ApplyConfiguration {
  boost::json::object object;
  std::vector<std::string> duplicate_keys;  // what yaml.UnmarshalStrict refuses, for fieldValidation
};
ApplyConfiguration decode_apply_configuration(const std::string& body);
// summarizeData(body, 30) of kube's handlers/rest.go: the start of the body, in hex unless it looks like JSON.
std::string summarize_body(std::string_view body);

}  // namespace kapi::endpoints::handlers
