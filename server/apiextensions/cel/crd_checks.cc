// apiextensions-apiserver pkg/apis/apiextensions/validation: validation.go (the x-kubernetes-validations part of
// ValidateCustomResourceDefinitionOpenAPISchema, the CRD cost total, getCostErrorMessage, getExpressionCost) and
// cel_validation.go (CELSchemaContext's cardinality and TotalCost).
#include "server/apiextensions/cel/crd_checks.h"

#include "base/go_quote.h"
#include "server/apiextensions/cel/field_path.h"
#include "server/apiextensions/cel/rules.h"
#include "server/apiextensions/cel/schema_types.h"
#include "base/ascii.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <optional>

namespace kapi::apiextensions::cel {
namespace {

using schema::Schema;
using validation::ErrorList;
using validation::Path;

struct RuleCost {
  std::string path;
  std::uint64_t cost = 0;
};

struct TotalCost {
  std::uint64_t total = 0;
  std::vector<RuleCost> most_expensive;

  void observe(const Path& path, std::uint64_t cost) {
    total = std::numeric_limits<std::uint64_t>::max() - total < cost ? std::numeric_limits<std::uint64_t>::max()
                                                                      : total + cost;
    if (cost < kStaticEstimatedCrdCostLimit / 100) return;  // under 1% of the limit
    most_expensive.push_back({path.str(), cost});
    std::stable_sort(most_expensive.begin(), most_expensive.end(),
                     [](const RuleCost& a, const RuleCost& b) { return a.cost > b.cost; });
    if (most_expensive.size() > 4) most_expensive.resize(4);
  }
};

std::uint64_t multiply_saturating(std::uint64_t cost, std::uint64_t cardinality) {
  if (cost == 0) return 0;
  if (std::numeric_limits<std::uint64_t>::max() / cost < cardinality) return std::numeric_limits<std::uint64_t>::max();
  return cost * cardinality;
}

// extractMaxElements: how many values of a child each value of `s` holds (nullopt: unbounded).
std::optional<std::uint64_t> max_elements(const Schema& s) {
  auto non_negative = [](std::int64_t v) { return static_cast<std::uint64_t>(std::max<std::int64_t>(v, 0)); };
  if (s.type == "object") {
    if (s.additional_properties) {
      if (s.max_properties) return non_negative(*s.max_properties);
      return std::nullopt;
    }
    return 1;
  }
  if (s.type == "array") {
    if (s.max_items) return non_negative(*s.max_items);
    return std::nullopt;
  }
  return 1;
}

bool has_newlines(std::string_view s) { return s.find_first_of("\n\r") != std::string_view::npos; }

struct Context {
  bool compile = false;  // nodes under junctors only get the field checks
  std::optional<std::uint64_t> cardinality;
  std::optional<std::string> uncorrelatable_path;  // where oldSelf stops being usable
};

class Walker {
 public:
  explicit Walker(const CrdRuleCheckOptions& options) : options_(options) {}

  // Returns how many field (schema) errors the subtree had, which keeps its rules from being compiled.
  std::size_t walk(const Schema& s, const Path& path, const Context& context, bool is_root) {
    std::size_t schema_errors = 0;
    // A child's context: its cardinality (this node's times how many children each value has), and whether
    // old values stop correlating here (items of lists other than map lists).
    auto child_context = [&](bool uncorrelatable) {
      Context sub{context.compile, std::nullopt, context.uncorrelatable_path};
      if (context.cardinality)
        if (auto elements = max_elements(s)) sub.cardinality = multiply_saturating(*context.cardinality, *elements);
      if (uncorrelatable && !sub.uncorrelatable_path) sub.uncorrelatable_path = path.str();
      return sub;
    };
    if (const Schema* values = s.additional_properties_schema())
      schema_errors += walk(*values, path.child("additionalProperties"), child_context(false), false);
    for (const auto& property : s.properties)
      schema_errors += walk(property.schema, path.child("properties").key(property.name),
                            child_context(false), false);
    Context junctor{false, std::nullopt, context.uncorrelatable_path};
    if (s.not_schema) schema_errors += walk(*s.not_schema, path.child("not"), junctor, false);
    for (std::size_t i = 0; i < s.all_of.size(); ++i)
      schema_errors += walk(s.all_of[i], path.child("allOf").index(i), junctor, false);
    for (std::size_t i = 0; i < s.one_of.size(); ++i)
      schema_errors += walk(s.one_of[i], path.child("oneOf").index(i), junctor, false);
    for (std::size_t i = 0; i < s.any_of.size(); ++i)
      schema_errors += walk(s.any_of[i], path.child("anyOf").index(i), junctor, false);
    if (s.items) {
      bool map_list = s.x_list_type && *s.x_list_type == "map";
      schema_errors += walk(*s.items, path.child("items"), child_context(!map_list), false);
    }
    if (!s.x_validations || s.x_validations->empty()) return schema_errors;

    std::vector<Rule> rules = parse_rules(*s.x_validations);
    schema_errors += check_rule_fields(s, rules, path);
    if (schema_errors == 0 && context.compile && options_.compile) compile(s, rules, path, context, is_root);
    return schema_errors;
  }

  ErrorList finish(const Path& root_path) {
    ErrorList errors = std::move(schema_errors_);
    for (auto& error : cel_errors_) errors.push_back(std::move(error));
    if (total_.total > kStaticEstimatedCrdCostLimit) {
      for (const auto& expensive : total_.most_expensive)
        errors.push_back(validation::forbidden(
            Path(expensive.path),
            "contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema"));
      errors.push_back(validation::forbidden(
          root_path, cost_error_message("x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema",
                                        total_.total, kStaticEstimatedCrdCostLimit)));
    }
    return errors;
  }

 private:
  std::size_t check_rule_fields(const Schema& s, const std::vector<Rule>& rules, const Path& path) {
    std::size_t before = schema_errors_.size();
    for (std::size_t i = 0; i < rules.size(); ++i) {
      const Rule& rule = rules[i];
      Path at = path.child("x-kubernetes-validations").index(i);
      const std::string_view trimmed_rule = base::trim_ascii_space(rule.rule);
      const std::string_view trimmed_message = base::trim_ascii_space(rule.message);
      if (trimmed_rule.empty()) {
        schema_errors_.push_back(validation::required(at.child("rule"), "rule is not specified"));
      } else if (!rule.message.empty() && trimmed_message.empty()) {
        schema_errors_.push_back(validation::invalid(at.child("message"), rule.message, "message must be non-empty if specified"));
      } else if (has_newlines(trimmed_message)) {
        schema_errors_.push_back(validation::invalid(at.child("message"), rule.message, "message must not contain line breaks"));
      } else if (has_newlines(trimmed_rule) && trimmed_message.empty()) {
        schema_errors_.push_back(validation::required(at.child("message"), "message must be specified if rule contains line breaks"));
      }
      if (!rule.message_expression.empty() && base::trim_ascii_space(rule.message_expression).empty())
        schema_errors_.push_back(validation::required(at.child("messageExpression"), "messageExpression must be non-empty if specified"));
      static const std::vector<std::string> kReasons = {"FieldValueDuplicate", "FieldValueForbidden",
                                                        "FieldValueInvalid", "FieldValueRequired"};
      if (rule.reason && std::find(kReasons.begin(), kReasons.end(), *rule.reason) == kReasons.end())
        schema_errors_.push_back(validation::not_supported(at.child("reason"), *rule.reason, kReasons));
      if (!rule.field_path.empty() && base::trim_ascii_space(rule.field_path).empty())
        schema_errors_.push_back(validation::invalid(at.child("fieldPath"), rule.field_path, "fieldPath must be non-empty if specified"));
      if (has_newlines(rule.field_path))
        schema_errors_.push_back(validation::invalid(at.child("fieldPath"), rule.field_path, "fieldPath must not contain line breaks"));
      if (!rule.field_path.empty() && std::holds_alternative<std::string>(valid_field_path(rule.field_path, s)))
        schema_errors_.push_back(validation::invalid(at.child("fieldPath"), rule.field_path, "fieldPath must be a valid path"));
    }
    return schema_errors_.size() - before;
  }

  void compile(const Schema& s, const std::vector<Rule>& rules, const Path& path, const Context& context,
               bool is_root) {
    auto decl = schema_decl_type(s, is_root || s.x_embedded_resource, unique_self_type_name());
    if (!decl) {
      validation::FieldError error;
      error.type = validation::ErrorType::Internal;
      error.field = path.child("x-kubernetes-validations").str();
      error.detail = "internal error: failed to construct type information for x-kubernetes-validations rules: "
                     "unable to convert structural schema to CEL declarations";
      cel_errors_.push_back(std::move(error));
      return;
    }
    CompiledRules compiled = compile_rules(rules, s, decl, new_expressions_env(), options_.preexisting);
    for (std::size_t i = 0; i < compiled.rules.size(); ++i) {
      const CompiledRule& result = compiled.rules[i];
      const Rule& rule = rules[i];
      Path at = path.child("x-kubernetes-validations").index(i);
      std::uint64_t cost = multiply_saturating(result.max_cost, context.cardinality.value_or(result.max_cardinality));
      if (!options_.suppress_per_expression_cost && cost > kStaticEstimatedCostLimit)
        cel_errors_.push_back(validation::forbidden(
            at.child("rule"), cost_error_message("estimated rule cost", cost, kStaticEstimatedCostLimit)));
      total_.observe(at.child("rule"), cost);
      if (result.error)
        cel_errors_.push_back(validation::invalid_value(at.child("rule"), go_rule_value(rule), result.error->detail));
      if (result.message_expression_error) {
        cel_errors_.push_back(validation::invalid_value(at.child("messageExpression"), go_rule_value(rule),
                                                        result.message_expression_error->detail));
      } else if (result.message_expression) {
        if (!options_.suppress_per_expression_cost && result.message_expression_max_cost > kStaticEstimatedCostLimit)
          cel_errors_.push_back(validation::forbidden(
              at.child("messageExpression"),
              cost_error_message("estimated messageExpression cost", result.message_expression_max_cost,
                                 kStaticEstimatedCostLimit)));
        total_.observe(at.child("messageExpression"), result.message_expression_max_cost);
      }
      if (result.uses_old_self) {
        if (context.uncorrelatable_path)
          cel_errors_.push_back(validation::invalid(
              at.child("rule"), rule.rule,
              "oldSelf cannot be used on the uncorrelatable portion of the schema within " + *context.uncorrelatable_path));
      } else if (rule.optional_old_self) {
        cel_errors_.push_back(validation::invalid_value(at.child("optionalOldSelf"),
                                                        *rule.optional_old_self ? "true" : "false",
                                                        "may not be set if oldSelf is not used in rule"));
      }
    }
  }

  const CrdRuleCheckOptions& options_;
  ErrorList schema_errors_;
  ErrorList cel_errors_;
  TotalCost total_;
};

}  // namespace

ErrorList validate_crd_rules(const Schema& root, const Path& path, const CrdRuleCheckOptions& options) {
  Walker walker(options);
  walker.walk(root, path, Context{true, 1, std::nullopt}, true);
  return walker.finish(path);
}

std::string cost_error_message(std::string_view cost_name, std::uint64_t cost, std::uint64_t limit) {
  double factor = static_cast<double>(cost) / static_cast<double>(limit);
  std::string text;
  char buffer[64];
  if (factor > 100.0) {
    text = "more than 100x";
  } else if (factor < 1.5) {
    std::snprintf(buffer, sizeof buffer, "%fx", factor);
    text = buffer;
  } else {
    std::snprintf(buffer, sizeof buffer, "%.1fx", factor);
    text = buffer;
  }
  return std::string(cost_name) + " exceeds budget by factor of " + text +
         " (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and "
         "strings are declared)";
}

}  // namespace kapi::apiextensions::cel
