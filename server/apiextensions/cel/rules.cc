// apiextensions-apiserver pkg/apiserver/schema/cel/compilation.go: Compile, prepareEnvSet and compileRule.
#include "server/apiextensions/cel/rules.h"

#include "base/go_quote.h"
#include "cel/compile.h"
#include "cel/cost.h"
#include "cel/ext/kube_env.h"
#include "server/apiextensions/cel/field_path.h"
#include "base/ascii.h"

#include <boost/json.hpp>

#include <map>
#include <utility>

namespace kapi::apiextensions::cel {
namespace {

namespace json = boost::json;
using kapi::cel::Env;
using kapi::cel::Type;

std::string string_member(const json::object& object, std::string_view key) {
  const json::value* v = object.if_contains(key);
  return v && v->is_string() ? std::string(v->get_string()) : std::string();
}

bool uses_variable(const kapi::cel::CheckedAst& ast, std::string_view name) {
  for (const auto& [id, reference] : ast.references)
    if (reference.name == name) return true;
  return false;
}

// The environment of one node's expressions: `self`, and `oldSelf` of self's type or of optional_type(self's type).
std::shared_ptr<const Env> node_env(const Env& base, const Type& self, bool optional_old_self) {
  Env env = base;
  env.add_variable("self", self);
  env.add_variable("oldSelf", optional_old_self ? Type::optional(self) : self);
  return std::make_shared<const Env>(std::move(env));
}

CompiledRule compile_rule(const Rule& rule, const schema::Schema& node, const std::shared_ptr<const Env>& env,
                          const std::shared_ptr<const Env>& message_env, std::uint64_t max_cardinality) {
  CompiledRule result;
  if (base::trim_ascii_space(rule.rule).empty()) return result;
  kapi::cel::CheckResult checked = kapi::cel::compile(*env, rule.rule);
  if (!checked.ast) {
    result.error = CompileError{CompileErrorType::kInvalid, "compilation failed: " + checked.message};
    return result;
  }
  if (checked.ast->result_type().kind() != kapi::cel::TypeKind::kBool) {
    result.error = CompileError{CompileErrorType::kInvalid, "cel expression must evaluate to a bool"};
    return result;
  }
  result.uses_old_self = uses_variable(*checked.ast, "oldSelf");
  auto ast = std::make_shared<const kapi::cel::CheckedAst>(std::move(*checked.ast));
  result.max_cost = kapi::cel::estimate_cost(*ast, *env).max;
  result.max_cardinality = max_cardinality;
  result.program = kapi::cel::Program::plan(env, ast);

  if (!rule.message_expression.empty()) {
    kapi::cel::CheckResult message = kapi::cel::compile(*message_env, rule.message_expression);
    if (!message.ast) {
      result.message_expression_error =
          CompileError{CompileErrorType::kInvalid, "messageExpression compilation failed: " + message.message};
      return result;
    }
    if (message.ast->result_type().kind() != kapi::cel::TypeKind::kString) {
      result.message_expression_error =
          CompileError{CompileErrorType::kInvalid, "messageExpression must evaluate to a string"};
      return result;
    }
    auto message_ast = std::make_shared<const kapi::cel::CheckedAst>(std::move(*message.ast));
    result.message_expression_max_cost = kapi::cel::estimate_cost(*message_ast, *message_env).max;
    result.message_expression = kapi::cel::Program::plan(message_env, message_ast);
  }
  if (!rule.field_path.empty()) {
    auto path = valid_field_path(rule.field_path, node);
    if (auto* valid = std::get_if<FieldPathResult>(&path)) result.normalized_field_path = valid->path;
  }
  return result;
}

}  // namespace

std::vector<Rule> parse_rules(const json::array& rules) {
  std::vector<Rule> out;
  for (const auto& value : rules) {
    Rule rule;
    if (value.is_object()) {
      const json::object& object = value.get_object();
      rule.rule = string_member(object, "rule");
      rule.message = string_member(object, "message");
      rule.message_expression = string_member(object, "messageExpression");
      if (const json::value* reason = object.if_contains("reason"); reason && reason->is_string())
        rule.reason = std::string(reason->get_string());
      rule.field_path = string_member(object, "fieldPath");
      if (const json::value* optional = object.if_contains("optionalOldSelf"); optional && optional->is_bool())
        rule.optional_old_self = optional->get_bool();
    }
    out.push_back(std::move(rule));
  }
  return out;
}

std::string go_rule_value(const Rule& rule) {
  // Pointers print as addresses in Go; kapi prints a stable stand-in.
  std::string out = "apiextensions.ValidationRule{Rule:" + base::go_quote(rule.rule) +
                    ", Message:" + base::go_quote(rule.message) +
                    ", MessageExpression:" + base::go_quote(rule.message_expression) + ", Reason:";
  out += rule.reason ? "(*apiextensions.FieldValueErrorReason)(0xc000010000)" : "(*apiextensions.FieldValueErrorReason)(nil)";
  out += ", FieldPath:" + base::go_quote(rule.field_path) + ", OptionalOldSelf:";
  out += rule.optional_old_self ? "(*bool)(0xc000010008)" : "(*bool)(nil)";
  return out + "}";
}

void collect_expressions(const schema::Schema& schema, PreexistingExpressions& into) {
  if (schema.x_validations)
    for (const Rule& rule : parse_rules(*schema.x_validations)) {
      into.rules.insert(rule.rule);
      if (!rule.message_expression.empty()) into.message_expressions.insert(rule.message_expression);
    }
  for (const auto& property : schema.properties) collect_expressions(property.schema, into);
  for (const schema::Schema* child : {schema.items.get(), schema.additional_properties_schema(), schema.not_schema.get()})
    if (child) collect_expressions(*child, into);
  for (const auto* junctor : {&schema.all_of, &schema.any_of, &schema.one_of})
    for (const auto& branch : *junctor) collect_expressions(branch, into);
}

CompiledRules compile_rules(const std::vector<Rule>& rules, const schema::Schema& node,
                            const std::optional<DeclType>& decl, const Env& base,
                            const PreexistingExpressions* preexisting) {
  CompiledRules compiled;
  if (rules.empty()) return compiled;
  if (!decl) {
    compiled.error = "failed to convert to declType for CEL validation rules";
    return compiled;
  }
  // At most four environments per node (new or stored base, plain or optional oldSelf), each built once.
  std::map<std::pair<const Env*, bool>, std::shared_ptr<const Env>> envs;
  auto env_for = [&](const std::set<std::string, std::less<>>* stored, const std::string& expression,
                     bool optional_old_self) -> const std::shared_ptr<const Env>& {
    const Env& from = stored && stored->contains(expression) ? stored_expressions_env() : base;
    std::shared_ptr<const Env>& env = envs[{&from, optional_old_self}];
    if (!env) env = node_env(from, decl->type, optional_old_self);
    return env;
  };
  std::uint64_t cardinality = max_cardinality(decl->min_serialized_size);
  for (const auto& rule : rules) {
    const bool optional_old_self = rule.optional_old_self.value_or(false);
    const std::shared_ptr<const Env> rule_env =
        env_for(preexisting ? &preexisting->rules : nullptr, rule.rule, optional_old_self);
    const std::shared_ptr<const Env> message_env =
        rule.message_expression.empty()
            ? rule_env
            : env_for(preexisting ? &preexisting->message_expressions : nullptr, rule.message_expression,
                      optional_old_self);
    compiled.rules.push_back(compile_rule(rule, node, rule_env, message_env, cardinality));
  }
  return compiled;
}

const Env& stored_expressions_env() {
  static const Env kEnv = kapi::cel::ext::kube_stored_env();
  return kEnv;
}

const Env& new_expressions_env() {
  static const Env kEnv = kapi::cel::ext::kube_base_env();
  return kEnv;
}

}  // namespace kapi::apiextensions::cel
