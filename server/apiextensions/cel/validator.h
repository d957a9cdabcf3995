#pragma once
// Evaluating a custom resource's x-kubernetes-validations rules (apiextensions-apiserver
// pkg/apiserver/schema/cel/validation.go): one Validator per schema node that has rules or has descendants with
// rules, each node's rules compiled once when the CRD version is loaded, then run against every write with
// kube's per-call cost limit and per-request budget and kube's field errors. On an update, transition rules see
// the correlated old value as `oldSelf`, and with ratcheting a failing rule on an unchanged value is let through.
#include "server/apiextensions/cel/rules.h"
#include "server/apiextensions/schema/structural.h"
#include "server/validation/field_error.h"

#include <boost/json/value.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace kapi::apiextensions::cel {



// kube's RuntimeCELCostBudget: what the rules of one request may spend together.
inline constexpr std::int64_t kRuntimeCostBudget = kapi::cel::cost_limits::kRuntimeCelCostBudget;

struct ValidationResult {
  validation::ErrorList errors;
  std::vector<std::string> warnings;  // errors ratcheting let through, as kube warns about them
  std::int64_t remaining_budget = 0;
};

class Validator {
 public:
  // The validator of a custom resource's schema; null when no node has rules.
  static std::shared_ptr<const Validator> for_resource(std::shared_ptr<const schema::Schema> schema);

  // `old` on updates (null on create); `ratcheting` pairs old and new values node by node (kube's
  // CRDValidationRatcheting, on for the main resource's updates, off for the status subresource).
  ValidationResult validate(const boost::json::value& object, const boost::json::value* old, bool ratcheting,
                            std::int64_t budget = kRuntimeCostBudget) const;

  struct Node;

  explicit Validator(std::shared_ptr<const schema::Schema> schema, std::unique_ptr<Node> root);
  ~Validator();

 private:
  std::shared_ptr<const schema::Schema> schema_;
  std::unique_ptr<Node> root_;
};

}  // namespace kapi::apiextensions::cel
