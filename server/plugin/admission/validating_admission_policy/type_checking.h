#pragma once
// The type checking of a policy's expressions against the kinds it matches (kube's policy/validating
// typechecking.go TypeChecker.Check): each validation's expression and messageExpression compiled with `object`
// and `oldObject` typed as each matched kind (at most 10 kinds, from resource rules without wildcards) and `params`
// as the param kind; what fails to compile becomes a warning for status.typeChecking.expressionWarnings.
#include "server/admission/plugin.h"

#include <boost/json/object.hpp>

#include <string>
#include <vector>

namespace kapi::schema { class Catalog; }

namespace kapi::admission::policy {

struct ExpressionWarning {
  std::string field_ref;  // "spec.validations[0].expression"
  std::string warning;    // "apps/v1, Kind=Deployment: ERROR: <input>:1:8: undefined field 'x'\n | ...\n"
};

std::vector<ExpressionWarning> type_check(const boost::json::object& policy, const StoreLookup& stores,
                                          const CustomSchemaLookup& custom_schemas, const schema::Catalog& catalog);

}  // namespace kapi::admission::policy
