#pragma once
// Decoding a request body against its kind's schema, as kube-apiserver's decoder does it: the Go structs there
// drop fields they do not know (reported per fieldValidation: Strict fails the request, Warn adds a warning),
// refuse values of the wrong JSON type, and the scheme's defaulters fill unset fields. kapi does the same from
// the type schemas, with the +default markers as the defaults.
#include "server/schema/catalog.h"

#include <boost/json/object.hpp>

#include <optional>
#include <string>
#include <vector>

namespace kapi::schema {

enum class FieldValidation { kIgnore, kWarn, kStrict };

// The fieldValidation query parameter; empty means Warn, kube-apiserver's default. Throws ApiError 400 for
// other values.
FieldValidation parse_field_validation(std::string_view value);

// Conforms `object` (a `kind` object with apiVersion and kind) to the schema in place: removes unknown fields and
// returns their paths ("spec.containers[0].foo"), writes a body in its Go form (to_go_form below), fills +default
// values (in the zero structs of the Go form too, as kube's defaulters do), and throws ApiError 400 BadRequest with
// kube's message ("ConfigMap in version \"v1\" cannot be handled as a ConfigMap: json: cannot unmarshal number
// into Go struct field ConfigMap.data of type string") when a value has the wrong type.
// `overflow` says what an integer beyond its field's type (an int32's 99999999999) does: fail as a body's JSON
// decoding fails ("json: cannot unmarshal number 99999999999 into Go struct field ContainerPort.spec.containers.
// ports.containerPort of type int32"), or, for an applied object, convert as kube's unstructured converter does;
// an applied object, which is partial, is not written in its Go form either.
enum class IntegerOverflow { kError, kConvert };
std::vector<std::string> conform(const Catalog& catalog, const google::protobuf::Descriptor* kind,
                                 boost::json::object& object, IntegerOverflow overflow = IntegerOverflow::kError);

// The object as kube's handlers hold it once decoded: its Go struct written back as encoding/json writes it. Null
// and the zero values of omitempty fields are gone, and absent non-pointer structs are there in their zero form
// (a container's "resources": {}), which is what kube's field managers, admission and storage see. The protobuf
// round trip is where kapi keeps those rules (transcoder.h); an object it cannot carry is left as it is.
void to_go_form(const Catalog& catalog, const google::protobuf::Descriptor* kind, boost::json::object& object);

// conform() for one message inside an object whose kind has no message in the catalog (the CRD's ObjectMeta): the
// message at `path` is conformed in place, its unknown fields' paths are appended to `unknown`, and a value of the
// wrong type is returned as encoding/json's error ("json: cannot unmarshal number into Go struct field
// ObjectMeta.metadata.labels of type map[string]string") for the caller to report.
std::optional<std::string> conform_embedded(const Catalog& catalog, const google::protobuf::Descriptor* type,
                                            boost::json::object& object, const std::string& path,
                                            std::vector<std::string>& unknown);

// Applies the fieldValidation directive to conform()'s unknown fields: Strict throws 400 BadRequest
// ("strict decoding error: unknown field \"x\", ..."), Warn returns the warnings, Ignore nothing.
std::vector<std::string> report_unknown_fields(FieldValidation validation, const std::vector<std::string>& unknown);

// Applies the fieldValidation directive to a create or update body's strict decoding errors (`duplicate field
// "x"`, `unknown field "x"`, go-yaml's "yaml: unmarshal errors:\n  line 5: key \"x\" already set in map") as kube's
// handlers do: Strict throws 400 BadRequest worded by transformDecodeError ("ConfigMap in version \"v1\" cannot be
// handled as a ConfigMap: strict decoding error: a, b"), Warn returns one warning per error (go-yaml's one per
// line, as kube's parseYAMLWarnings splits it), Ignore nothing.
std::vector<std::string> report_strict_errors(FieldValidation validation, const google::protobuf::Descriptor* kind,
                                              const std::vector<std::string>& errors);
// The same for a kind without a protobuf message (a custom resource): `kind` and `version` name it.
std::vector<std::string> report_strict_errors(FieldValidation validation, std::string_view kind,
                                              std::string_view version, const std::vector<std::string>& errors);

}  // namespace kapi::schema
