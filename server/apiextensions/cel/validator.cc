// apiextensions-apiserver pkg/apiserver/schema/cel/validation.go: NewValidator, validator, Validate,
// validateExpressions, evalMessageExpression, fieldErrorForReason, validateMap and validateArray, with the
// ratcheting options of the same file.
#include "server/apiextensions/cel/validator.h"

#include "base/go_quote.h"
#include "server/apiextensions/schema/correlation.h"
#include "server/apiextensions/cel/escaping.h"
#include "server/apiextensions/cel/values.h"
#include "base/ascii.h"

#include <boost/json.hpp>

#include <map>

namespace kapi::apiextensions::cel {

namespace json = boost::json;
using kapi::cel::Value;
using schema::Schema;
using validation::Path;
using schema::Correlation;
using schema::correlated_map_list_item;

struct Validator::Node {
  const Schema* schema = nullptr;  // the node's own schema (an allOf's rules run against the node's types)
  std::vector<Rule> rules;
  CompiledRules compiled;
  bool is_resource_root = false;
  std::unique_ptr<Node> items;
  std::unique_ptr<Node> additional_properties;
  std::map<std::string, std::unique_ptr<Node>, std::less<>> properties;
  std::vector<std::unique_ptr<Node>> all_of;
};

namespace {

using Node = Validator::Node;

constexpr std::size_t kMaxEvaluatedMessageExpressionSizeBytes =
    kapi::cel::cost_limits::kMaxEvaluatedMessageExpressionSizeBytes;

bool has_rules(const Schema& s, bool with_all_of) {
  if (s.x_validations && !s.x_validations->empty()) return true;
  if (s.items && has_rules(*s.items, with_all_of)) return true;
  if (const Schema* values = s.additional_properties_schema(); values && has_rules(*values, with_all_of)) return true;
  for (const auto& property : s.properties)
    if (has_rules(property.schema, with_all_of)) return true;
  if (with_all_of)
    for (const auto& junct : s.all_of)
      if (has_rules(junct, with_all_of)) return true;
  return false;
}

// Whether SchemaDeclType gives the node a type (without building it).
bool is_exposed(const Schema& s) {
  if (s.x_int_or_string) return true;
  if (s.type == "array") return s.items && is_exposed(*s.items);
  if (s.type == "object") {
    const Schema* values = s.additional_properties_schema();
    return !values || is_exposed(*values);
  }
  return s.type == "string" || s.type == "boolean" || s.type == "number" || s.type == "integer";
}

std::unique_ptr<Node> build(const Schema& rules_schema, const Schema& node_schema, bool is_resource_root) {
  if (!has_rules(rules_schema, true)) return nullptr;
  auto node = std::make_unique<Node>();
  node->schema = &node_schema;
  node->is_resource_root = is_resource_root;
  if (rules_schema.x_validations && !rules_schema.x_validations->empty()) {
    node->rules = parse_rules(*rules_schema.x_validations);
    std::optional<DeclType> decl;
    if (is_exposed(node_schema)) decl = schema_decl_type(node_schema, is_resource_root, unique_self_type_name());
    node->compiled = compile_rules(node->rules, node_schema, decl, stored_expressions_env());
  }
  if (rules_schema.items && node_schema.items)
    node->items = build(*rules_schema.items, *node_schema.items, node_schema.items->x_embedded_resource);
  bool exposed = is_exposed(node_schema);
  for (const auto& property : rules_schema.properties) {
    const Schema* node_property = node_schema.property(property.name);
    if (!node_property) continue;
    // Fields CEL cannot see (no type, or an escapable name under a parent CEL cannot see) keep no rules.
    if (!is_exposed(*node_property) || (escape(property.name) && !exposed)) continue;
    if (auto child = build(property.schema, *node_property, node_property->x_embedded_resource))
      node->properties.emplace(property.name, std::move(child));
  }
  const Schema* rules_values = rules_schema.additional_properties_schema();
  const Schema* node_values = node_schema.additional_properties_schema();
  if (rules_values && node_values)
    node->additional_properties = build(*rules_values, *node_values, node_values->x_embedded_resource);
  for (const auto& junct : rules_schema.all_of)
    if (auto child = build(junct, node_schema, is_resource_root)) node->all_of.push_back(std::move(child));
  if (node->compiled.rules.empty() && !node->compiled.error && !node->items && !node->additional_properties &&
      node->properties.empty() && node->all_of.empty())
    return nullptr;
  return node;
}

const json::value* non_null(const json::value* v) { return v && !v->is_null() ? v : nullptr; }

std::string rule_error_string(const Rule& rule) {
  return rule.message.empty() ? std::string(base::trim_ascii_space(rule.rule))
                              : std::string(base::trim_ascii_space(rule.message));
}

std::string rule_message_or_default(const Rule& rule) {
  return rule.message.empty() ? "failed rule: " + rule_error_string(rule)
                              : std::string(base::trim_ascii_space(rule.message));
}

std::string field_of(const Path& path) { return path.str().empty() ? "<nil>" : path.str(); }

validation::FieldError rule_invalid(const Path& path, std::string_view type, std::string detail) {
  validation::FieldError error = validation::invalid(path, type, std::move(detail));
  error.field = field_of(path);
  return error;
}

validation::FieldError error_for_reason(const Path& path, std::string_view type, std::string detail,
                                        const std::optional<std::string>& reason) {
  validation::FieldError error;
  if (reason && *reason == "FieldValueForbidden") error = validation::forbidden(path, std::move(detail));
  else if (reason && *reason == "FieldValueRequired") error = validation::required(path, std::move(detail));
  else if (reason && *reason == "FieldValueDuplicate") error = validation::duplicate(path, type);
  else error = validation::invalid(path, type, std::move(detail));
  error.field = field_of(path);
  return error;
}

// ratchetingOptions: the correlation of the node being validated and of its nearest parent.
struct Ratchet {
  Correlation* current = nullptr;
  Correlation* nearest_parent = nullptr;

  bool should_ratchet() const {
    if (current) return current->cached_deep_equal();
    return nearest_parent && nearest_parent->cached_deep_equal();
  }
  Ratchet key(const std::string& field) const {
    if (!current) return *this;
    if (!nearest_parent && (field == "apiVersion" || field == "kind")) return {};
    return {current->key(field), current};
  }
  Ratchet index(std::size_t i) const {
    if (!current) return *this;
    return {current->index(i), current};
  }
};

class Activation final : public kapi::cel::Activation {
 public:
  Activation(Value self, std::optional<Value> old_self) : self_(std::move(self)), old_self_(std::move(old_self)) {}
  const Value* find(std::string_view name) const override {
    if (name == "self") return &self_;
    if (name == "oldSelf" && old_self_) return &*old_self_;
    return nullptr;
  }

 private:
  Value self_;
  std::optional<Value> old_self_;
};

bool is_cost_limit_error(const kapi::cel::Error& error) {
  return error.code == kapi::cel::ErrorCode::kCostLimitExceeded ||
         error.message.starts_with("operation cancelled: actual cost limit exceeded");
}

struct Run {
  ValidationResult& out;
  std::int64_t& budget;
};

enum class MessageOutcome { kMessage, kFallback, kStop };

// evalMessageExpression: the message, or why the rule's own message is used instead, or a stop.
MessageOutcome eval_message(const kapi::cel::Program& program, const Rule& rule, const kapi::cel::Activation& activation,
                            std::int64_t& budget, std::string& message) {
  kapi::cel::EvalResult result = program.eval(activation, {.cost_limit = kPerCallLimit});
  if (result.cost > static_cast<std::uint64_t>(std::max<std::int64_t>(budget, 0))) {
    message = "messageExpression evaluation failed due to running out of cost budget, no further validation rules "
              "will be run";
    return MessageOutcome::kStop;
  }
  if (const auto* error = result.value.get_if<kapi::cel::Error>(); error && is_cost_limit_error(*error)) {
    message = "no further validation rules will be run due to call cost exceeds limit for messageExpression: " +
              base::go_quote(rule.message_expression);
    return MessageOutcome::kStop;
  }
  budget -= static_cast<std::int64_t>(result.cost);
  const std::string* text = result.value.get_if<std::string>();
  if (!text) return MessageOutcome::kFallback;
  std::string trimmed(base::trim_ascii_space(*text));
  if (trimmed.size() > kMaxEvaluatedMessageExpressionSizeBytes || trimmed.find('\n') != std::string::npos ||
      trimmed.empty())
    return MessageOutcome::kFallback;
  message = std::move(trimmed);
  return MessageOutcome::kMessage;
}

}  // namespace

namespace {

void validate_node(const Node& node, const Path& path, const json::value* object, const json::value* old,
                   Ratchet ratchet, Run run);

// validateExpressions: the node's own rules. Returns false when no further rules may run.
bool validate_expressions(const Node& node, const Path& path, const json::value& object, const json::value* old,
                          const Ratchet& ratchet, Run run) {
  const std::string& type = node.schema->type;
  if (node.compiled.error) {
    run.out.errors.push_back(rule_invalid(path, type, "rule compiler initialization error: " + *node.compiled.error));
    return true;
  }
  if (node.compiled.rules.empty()) return true;
  if (run.budget <= 0) {
    run.out.errors.push_back(rule_invalid(path, type, "validation failed due to running out of cost budget, no further "
                                                 "validation rules will be run"));
    run.budget = -1;
    return false;
  }
  Value self = to_value(object, *node.schema, node.is_resource_root);
  std::optional<Value> old_self;
  if (old) old_self = to_value(*old, *node.schema, node.is_resource_root);
  Activation plain(self, old_self);
  Activation optional(self, old_self ? Value::optional_of(*old_self) : Value::optional_none());

  for (std::size_t i = 0; i < node.compiled.rules.size(); ++i) {
    const CompiledRule& compiled = node.compiled.rules[i];
    const Rule& rule = node.rules[i];
    if (compiled.error) {
      run.out.errors.push_back(rule_invalid(path, type, "rule compile error: " + compiled.error->detail));
      continue;
    }
    if (!compiled.program) continue;
    bool optional_old_self = rule.optional_old_self.value_or(false);
    if (compiled.uses_old_self && !old && !optional_old_self) continue;
    const Activation& activation = optional_old_self ? optional : plain;

    kapi::cel::EvalResult result = compiled.program->eval(activation, {.cost_limit = kPerCallLimit});
    if (result.cost > static_cast<std::uint64_t>(run.budget)) {
      run.out.errors.push_back(rule_invalid(path, type, "validation failed due to running out of cost budget, no "
                                                   "further validation rules will be run"));
      run.budget = -1;
      return false;
    }
    run.budget -= static_cast<std::int64_t>(result.cost);
    if (const auto* error = result.value.get_if<kapi::cel::Error>()) {
      if (error->code == kapi::cel::ErrorCode::kNoSuchOverload || error->message.starts_with("no such overload")) {
        run.out.errors.push_back(rule_invalid(path, type, "'" + error->message + "': call arguments did not match a "
                                         "supported operator, function or macro signature for rule: " +
                                         rule_error_string(rule)));
      } else if (is_cost_limit_error(*error)) {
        run.out.errors.push_back(rule_invalid(path, type, "'" + error->message + "': no further validation rules will "
                                         "be run due to call cost exceeds limit for rule: " + rule_error_string(rule)));
        run.budget = -1;
        return false;
      } else {
        run.out.errors.push_back(rule_invalid(path, type, error->message + " evaluating rule: " + rule_error_string(rule)));
      }
      continue;
    }
    const bool* passed = result.value.get_if<bool>();
    if (passed && *passed) continue;

    Path at = compiled.normalized_field_path.empty() ? path : path.child(compiled.normalized_field_path);
    auto add = [&](validation::FieldError error) {
      if (!compiled.uses_old_self && ratchet.should_ratchet()) run.out.warnings.push_back(error.text());
      else run.out.errors.push_back(std::move(error));
    };
    if (compiled.message_expression) {
      std::string message;
      switch (eval_message(*compiled.message_expression, rule, activation, run.budget, message)) {
        case MessageOutcome::kStop:
          add(rule_invalid(at, type, message));
          run.budget = -1;
          return false;
        case MessageOutcome::kFallback:
          add(error_for_reason(at, type, rule_message_or_default(rule), rule.reason));
          break;
        case MessageOutcome::kMessage:
          add(error_for_reason(at, type, std::move(message), rule.reason));
          break;
      }
    } else {
      add(error_for_reason(at, type, rule_message_or_default(rule), rule.reason));
    }
  }
  return true;
}

void validate_array(const Node& node, const Path& path, const json::array& items, const json::value* old,
                    const Ratchet& ratchet, Run run) {
  if (!node.items) return;
  const json::array* old_items = old && old->is_array() ? &old->get_array() : nullptr;
  for (std::size_t i = 0; i < items.size(); ++i) {
    const json::value* old_item = correlated_map_list_item(*node.schema, old_items, items[i]);
    validate_node(*node.items, path.index(i), &items[i], old_item, ratchet.index(i), run);
    if (run.budget < 0) return;
  }
}

void validate_map(const Node& node, const Path& path, const json::object& object, const json::value* old,
                  const Ratchet& ratchet, Run run) {
  // Every map type kube accepts (granular, atomic, unset) correlates old and new values by key.
  const json::object* old_object = old && old->is_object() ? &old->get_object() : nullptr;
  auto old_of = [&](std::string_view key) { return old_object ? non_null(old_object->if_contains(key)) : nullptr; };
  if (node.additional_properties) {
    for (const auto& member : object) {
      std::string key(member.key());
      validate_node(*node.additional_properties, path.key(key), &member.value(), old_of(key), ratchet.key(key), run);
      if (run.budget < 0) return;
    }
  }
  if (!node.properties.empty()) {
    for (const auto& member : object) {
      auto it = node.properties.find(member.key());
      if (it == node.properties.end()) continue;
      std::string key(member.key());
      validate_node(*it->second, path.child(key), &member.value(), old_of(key), ratchet.key(key), run);
      if (run.budget < 0) return;
    }
  }
}

void validate_node(const Node& node, const Path& path, const json::value* object, const json::value* old,
                   Ratchet ratchet, Run run) {
  object = non_null(object);
  old = non_null(old);
  if (!object) return;
  if (!validate_expressions(node, path, *object, old, ratchet, run)) return;
  if (run.budget < 0) return;
  for (const auto& junct : node.all_of) {
    validate_node(*junct, path, object, old, Ratchet{nullptr, ratchet.nearest_parent}, run);
    if (run.budget < 0) return;
  }
  if (object->is_array()) validate_array(node, path, object->get_array(), old, ratchet, run);
  else if (object->is_object()) validate_map(node, path, object->get_object(), old, ratchet, run);
}

}  // namespace

Validator::Validator(std::shared_ptr<const Schema> schema, std::unique_ptr<Node> root)
    : schema_(std::move(schema)), root_(std::move(root)) {}

Validator::~Validator() = default;

std::shared_ptr<const Validator> Validator::for_resource(std::shared_ptr<const Schema> schema) {
  // kube builds no validator when only junctors hold rules.
  if (!schema || !has_rules(*schema, false)) return nullptr;
  auto root = build(*schema, *schema, true);
  if (!root) return nullptr;
  return std::make_shared<const Validator>(std::move(schema), std::move(root));
}

ValidationResult Validator::validate(const json::value& object, const json::value* old, bool ratcheting,
                                     std::int64_t budget) const {
  ValidationResult result;
  std::int64_t remaining = budget;
  std::optional<Correlation> correlation;
  Ratchet ratchet;
  if (ratcheting && old) {
    correlation.emplace(&object, old, schema_.get());
    ratchet.current = &*correlation;
  }
  validate_node(*root_, Path(""), &object, old, ratchet, Run{result, remaining});
  result.remaining_budget = remaining;
  return result;
}

}  // namespace kapi::apiextensions::cel
