#pragma once
// Helpers the apiextensions schema tests share: schemas and objects from JSON text, errors as kube's text.
#include "server/apiextensions/schema/structural.h"
#include "server/validation/field_error.h"

#include <boost/json.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace kapi::apiextensions::schema::testing {

inline Schema schema_from(std::string_view text) { return parse_schema(boost::json::parse(text).as_object()); }

inline std::vector<std::string> texts(const validation::ErrorList& errors) {
  std::vector<std::string> out;
  for (const auto& error : errors) out.push_back(error.text());
  return out;
}

// A CronTab CRD's schema, as kube's documentation writes it, with a few more fields to exercise each check.
inline constexpr std::string_view kCronTabSchema = R"({
  "type": "object",
  "properties": {
    "apiVersion": {"type": "string"},
    "kind": {"type": "string"},
    "metadata": {"type": "object"},
    "spec": {
      "type": "object",
      "required": ["cronSpec", "image"],
      "properties": {
        "cronSpec": {"type": "string", "pattern": "^(\\d+|\\*)(/\\d+)?(\\s+(\\d+|\\*)(/\\d+)?){4}$"},
        "image": {"type": "string"},
        "replicas": {"type": "integer", "minimum": 1, "maximum": 10},
        "size": {"type": "string", "enum": ["small", "large"]},
        "name": {"type": "string", "minLength": 3, "maxLength": 5},
        "tags": {"type": "array", "minItems": 1, "maxItems": 2, "items": {"type": "string"}},
        "labels": {"type": "object", "minProperties": 1, "maxProperties": 2, "additionalProperties": {"type": "string"}},
        "ratio": {"type": "number", "maximum": 1.5, "exclusiveMinimum": true, "minimum": 0},
        "batch": {"type": "integer", "multipleOf": 2},
        "when": {"type": "string", "format": "date-time"},
        "id": {"type": "string", "format": "uuid"},
        "port": {"x-kubernetes-int-or-string": true},
        "note": {"type": "string", "nullable": true},
        "count32": {"type": "integer", "format": "int32"}
      }
    },
    "status": {"type": "object", "properties": {"replicas": {"type": "integer"}}}
  }
})";

}  // namespace kapi::apiextensions::schema::testing
