// Fuzzes a CRD's openAPIV3Schema and the custom resources checked against it, as kube-apiserver 1.32 does both
// (apiextensions-apiserver/pkg/apis/apiextensions/validation and pkg/apiserver/schema): the schema read into its
// structural form (server/apiextensions/schema/structural.h) and put through the CRD checks (API rules, structural
// invariants, defaults: schema_checks.h); then, when the CRD would be accepted, an object conformed as the custom
// resource strategy conforms a body (pruning, embedded metadata coercion, defaulting) and validated as it validates
// a write: kube-openapi's value validation, embedded resources, list sets and maps, and ratcheting against the
// object as sent.
//
// The input is the schema JSON, a NUL byte, then the object JSON; without a NUL it is all object, checked against
// the CronTab schema of the unit tests. A schema is first decoded as part of a CRD, as kube decodes one into
// apiextensions' Go structs (crd_decoding.h), and one refused there never reaches the checks; nor does input that
// Go's JSON decoder would refuse, or an object that is no JSON object. CEL rules (x-kubernetes-validations) are the
// cel target's.
//
// None of these functions documents an exception: anything escaping (std::regex's included, for a schema's
// pattern), a crash, a sanitizer report or a timeout is a finding. So is pruning that is not idempotent or that
// reports its dropped fields out of order.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json/value.hpp>

#include "server/apiextensions/crd_decoding.h"
#include "server/apiextensions/schema/defaulting.h"
#include "server/apiextensions/schema/embedded_resources.h"
#include "server/apiextensions/schema/list_validation.h"
#include "server/apiextensions/schema/pruning.h"
#include "server/apiextensions/schema/schema_checks.h"
#include "server/apiextensions/schema/structural.h"
#include "server/apiextensions/schema/value_validation.h"
#include "server/apierrors/errors.h"
#include "server/patch/go_json.h"
#include "server/schema/catalog.h"
#include "tests/fuzz/finding.h"

namespace {

using kapi::fuzz::finding;

namespace schema = kapi::apiextensions::schema;
using kapi::validation::ErrorList;

// tests/unit/server/apiextensions/schema_test_util.h's, with an embedded resource and a map list.
constexpr std::string_view kCronTabSchema = R"({"type":"object","properties":{
  "apiVersion":{"type":"string"},"kind":{"type":"string"},"metadata":{"type":"object"},
  "spec":{"type":"object","required":["cronSpec","image"],"properties":{
    "cronSpec":{"type":"string","pattern":"^(\\d+|\\*)(/\\d+)?(\\s+(\\d+|\\*)(/\\d+)?){4}$"},
    "image":{"type":"string"},
    "replicas":{"type":"integer","minimum":1,"maximum":10,"default":1},
    "size":{"type":"string","enum":["small","large"]},
    "name":{"type":"string","minLength":3,"maxLength":5},
    "tags":{"type":"array","minItems":1,"maxItems":2,"items":{"type":"string"},"x-kubernetes-list-type":"set"},
    "labels":{"type":"object","minProperties":1,"maxProperties":2,"additionalProperties":{"type":"string"}},
    "ratio":{"type":"number","maximum":1.5,"exclusiveMinimum":true,"minimum":0},
    "batch":{"type":"integer","multipleOf":2},
    "when":{"type":"string","format":"date-time"},
    "id":{"type":"string","format":"uuid"},
    "port":{"x-kubernetes-int-or-string":true},
    "note":{"type":"string","nullable":true},
    "count32":{"type":"integer","format":"int32"},
    "ports":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"],
             "items":{"type":"object","required":["name"],"properties":{"name":{"type":"string"},
                                                                        "port":{"type":"integer"}}}},
    "template":{"type":"object","x-kubernetes-embedded-resource":true,"x-kubernetes-preserve-unknown-fields":true}}},
  "status":{"type":"object","properties":{"replicas":{"type":"integer"}}}}})";

// Every error written out as a client reads it, so that each field of it is formatted.
void print(const ErrorList& errors) {
  for (const auto& error : errors) error.text();
}

std::optional<boost::json::value> decode(std::string_view text) {
  std::string error;
  return kapi::patch::detail::parse_json(text, error);
}

// Decodes `schema` as the openAPIV3Schema of a CRD, in place; false when kube refuses the CRD's body. The decoder
// documents ApiError as its only exception.
bool decode_in_crd(boost::json::value& schema) {
  static const kapi::schema::Catalog catalog = kapi::schema::Catalog::builtin();
  boost::json::object crd{
      {"apiVersion", "apiextensions.k8s.io/v1"},
      {"kind", "CustomResourceDefinition"},
      {"metadata", boost::json::object{{"name", "crontabs.stable.example.com"}}},
      {"spec", boost::json::object{
                   {"group", "stable.example.com"},
                   {"versions", boost::json::array{boost::json::object{
                                    {"name", "v1"},
                                    {"schema", boost::json::object{{"openAPIV3Schema", std::move(schema)}}}}}}}}};
  try {
    kapi::apiextensions::decode_crd(catalog, crd);
  } catch (const kapi::apierrors::ApiError&) {
    return false;
  }
  schema = std::move(crd.at("spec").at("versions").at(0).at("schema").at("openAPIV3Schema"));
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::size_t nul = input.find('\0');
  const std::string_view schema_json = nul == std::string_view::npos ? kCronTabSchema : input.substr(0, nul);
  const std::string_view object_json = nul == std::string_view::npos ? input : input.substr(nul + 1);

  std::optional<boost::json::value> schema_document = decode(schema_json);
  if (!schema_document || !schema_document->is_object()) return 0;
  if (nul != std::string_view::npos && !decode_in_crd(*schema_document)) return 0;
  const schema::Schema schema = schema::parse_schema(schema_document->as_object());
  const kapi::validation::Path root =
      kapi::validation::Path("spec").child("versions").index(0).child("schema").child("openAPIV3Schema");
  const ErrorList schema_errors = schema::validate_crd_schema(schema, root);
  print(schema_errors);
  schema::has_cel_rules(schema);
  if (!schema_errors.empty()) return 0;  // kube refuses the CRD: no object is ever checked against it

  const std::optional<boost::json::value> sent = decode(object_json);
  if (!sent || !sent->is_object()) return 0;

  boost::json::value object = *sent;
  const std::vector<std::string> unknown = schema::prune(object, schema);
  if (!std::is_sorted(unknown.begin(), unknown.end())) finding("pruned fields reported out of order", unknown.front());
  if (const auto again = schema::prune(object, schema); !again.empty())
    finding("pruning a pruned object drops more", again.front());
  schema::coerce_embedded_metadata(object, schema);
  schema::prune_non_nullable_nulls_without_defaults(object, schema);
  schema::apply_defaults(object, schema);

  print(schema::validate_value(schema, object));
  print(schema::validate_value_update(schema, object, *sent));
  print(schema::validate_embedded_resources(object, schema));
  print(schema::validate_lists(object, schema));
  return 0;
}
