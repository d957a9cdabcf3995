#include "server/apiextensions/schema/go_values.h"
#include "server/apiextensions/schema/pruning.h"
#include "server/apiextensions/schema/schema_checks.h"
#include "server/apiextensions/schema/value_validation.h"

namespace kapi::apiextensions::schema {
namespace {

using validation::ErrorList;
using validation::Path;

void check(const Schema& s, const Path& path, bool inside_meta, bool treat_as_embedded, ErrorList& errors) {
  const bool embedded = treat_as_embedded || s.x_embedded_resource;
  if (embedded) inside_meta = false;
  if (s.default_value) {
    if (!inside_meta) {
      boost::json::value pruned = *s.default_value;
      prune(pruned, s, embedded);
      if (!go_deep_equal(pruned, *s.default_value))
        errors.push_back(validation::invalid_value(path.child("default"), field_error_value(*s.default_value), "must not have unknown fields"));
    }
    for (auto& error : validate_value(s, *s.default_value, path.child("default"))) errors.push_back(std::move(error));
  }
  // additionalProperties is not followed: defaults are forbidden there.
  if (s.items) check(*s.items, path.child("items"), inside_meta, false, errors);
  for (const auto& property : s.properties) {
    bool meta = property.name == "metadata" || property.name == "apiVersion" || property.name == "kind";
    check(property.schema, path.child("properties").key(property.name), inside_meta || (embedded && meta), false, errors);
  }
}

}  // namespace

ErrorList validate_defaults(const Schema& schema, const Path& path) {
  ErrorList errors;
  check(schema, path, false, true, errors);
  return errors;
}

}  // namespace kapi::apiextensions::schema
