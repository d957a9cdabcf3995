#pragma once
// A schema node's x-kubernetes-validations rules (apiextensions.ValidationRule) and how kube compiles them
// (apiextensions-apiserver pkg/apiserver/schema/cel/compilation.go): `self` typed from the node's schema,
// `oldSelf` of the same type (or optional_type of it with optionalOldSelf), the rule must yield a bool and
// messageExpression a string, both bounded by their estimated cost.
#include "cel/cost.h"
#include "cel/env.h"
#include "cel/program.h"
#include "server/apiextensions/cel/schema_types.h"
#include "server/apiextensions/schema/structural.h"

#include <boost/json/array.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace kapi::apiextensions::cel {

struct Rule {
  std::string rule;
  std::string message;
  std::string message_expression;
  std::optional<std::string> reason;  // FieldValueInvalid, FieldValueForbidden, FieldValueRequired, FieldValueDuplicate
  std::string field_path;
  std::optional<bool> optional_old_self;
};

std::vector<Rule> parse_rules(const boost::json::array& rules);

// Go's %#v of the internal apiextensions.ValidationRule, as kube's field errors print a rule.
std::string go_rule_value(const Rule& rule);

enum class CompileErrorType { kInvalid, kInternal };

struct CompileError {
  CompileErrorType type = CompileErrorType::kInvalid;
  std::string detail;
};

struct CompiledRule {
  std::optional<kapi::cel::Program> program;  // none when the rule is empty or failed to compile
  std::optional<CompileError> error;
  bool uses_old_self = false;
  std::uint64_t max_cost = 0;
  std::uint64_t max_cardinality = 0;
  std::optional<kapi::cel::Program> message_expression;
  std::optional<CompileError> message_expression_error;
  std::uint64_t message_expression_max_cost = 0;
  std::string normalized_field_path;  // fieldPath as kube normalizes it ("spec.x[key]"), empty when unset or invalid
};

// kube's per-call limit (apiserver/pkg/apis/cel PerCallLimit).
inline constexpr std::uint64_t kPerCallLimit = kapi::cel::cost_limits::kPerCallLimit;

// Compiles `rules` of a node whose values have type `decl` (nullopt: the node is not exposed to CEL, which
// fails every rule with kube's error, returned as the optional string). `node` resolves fieldPath.
struct CompiledRules {
  std::vector<CompiledRule> rules;
  std::optional<std::string> error;  // Compile's own error ("failed to convert to declType for CEL validation rules")
};
// The expressions of a CRD as stored (kube's preexistingExpressions, findPreexistingExpressions): an update
// compiles these in the StoredExpressions environment and only the others in NewExpressions, so a rule that a
// newer server accepted does not make its CRD unwritable after a rollback.
struct PreexistingExpressions {
  std::set<std::string, std::less<>> rules;
  std::set<std::string, std::less<>> message_expressions;
};
// Adds the rules and messageExpressions of every node of `schema` (junctors included).
void collect_expressions(const schema::Schema& schema, PreexistingExpressions& into);

// Each expression compiles in `base`, except those `preexisting` holds, which compile in stored_expressions_env().
CompiledRules compile_rules(const std::vector<Rule>& rules, const schema::Schema& node,
                            const std::optional<DeclType>& decl, const kapi::cel::Env& base,
                            const PreexistingExpressions* preexisting = nullptr);

// The environments rules start from (kube's environment.StoredExpressions / NewExpressions): cel-go's standard
// library with kube's libraries. Stored rules run in the first; rules being written are checked in the second.
const kapi::cel::Env& stored_expressions_env();
const kapi::cel::Env& new_expressions_env();

}  // namespace kapi::apiextensions::cel
