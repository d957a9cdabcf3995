#pragma once
// CEL cost: the static estimate the checker's cost estimator computes (cel-go's checker.Cost with kube's
// library.CostEstimator), and what one call costs at run time (cel-go's interpreter runtimecost.go with kube's
// CallCost). kube refuses CRD rules and policies whose estimate exceeds its limits, and stops evaluation at its
// per-call and per-request cost limits.
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "cel/ast.h"
#include "cel/env.h"
#include "cel/value.h"

namespace kapi::cel {

// kube's limits (k8s.io/apiserver/pkg/apis/cel/config.go, apiextensions validation.go).
namespace cost_limits {
inline constexpr std::uint64_t kPerCallLimit = 1'000'000;                      // one evaluation of one expression
inline constexpr std::uint64_t kRuntimeCelCostBudget = 10'000'000;             // all rules of one object / binding
inline constexpr std::uint64_t kRuntimeCelCostBudgetMatchConditions = 2'500'000;
inline constexpr std::uint64_t kCheckFrequency = 100;  // comprehension iterations between interrupt checks
inline constexpr std::int64_t kMaxRequestSizeBytes = 3 * 1024 * 1024;
inline constexpr std::int64_t kMaxEvaluatedMessageExpressionSizeBytes = 5 * 1024;
inline constexpr std::uint64_t kStaticEstimatedCostLimit = 10'000'000;      // one CRD rule's estimate
inline constexpr std::uint64_t kStaticEstimatedCrdCostLimit = 100'000'000;  // all rules of a CRD schema
}  // namespace cost_limits

// cel-go's cost units (common/cost.go).
namespace cost_units {
inline constexpr std::uint64_t kSelectAndIdent = 1;
inline constexpr std::uint64_t kConst = 0;
inline constexpr std::uint64_t kListCreateBase = 10;
inline constexpr std::uint64_t kMapCreateBase = 30;
inline constexpr std::uint64_t kStructCreateBase = 40;
inline constexpr double kStringTraversalFactor = 0.1;
inline constexpr double kRegexStringLengthFactor = 0.25;
}  // namespace cost_units

struct CostEstimate {
  std::uint64_t min = 0;
  std::uint64_t max = 0;  // saturating: UINT64_MAX means unbounded
  bool operator==(const CostEstimate&) const = default;
};

// The size of a string (code points), bytes, list or map: cel-go's checker.SizeEstimate.
struct SizeEstimate {
  std::uint64_t min = 0;
  std::uint64_t max = 0;
  bool operator==(const SizeEstimate&) const = default;
};

// Sizes the estimator cannot know from types alone (kube: the size of `self` from the schema's limits). Returning
// nullopt lets the estimator fall back to the node type's max_elements, then to unbounded. A returned n means
// "between 0 and n".
using SizeEstimator = std::function<std::optional<std::uint64_t>(const CheckedAst& ast, std::int64_t expr_id)>;

// A node as cel-go's checker.AstNode shows it to a size estimator. path is cel-go's field path: a variable name,
// then field names, "@items" (list elements), "@keys", "@values" (map keys and values); empty when the node is not
// reachable that way. Quirks kept from cel-go: an iteration variable over a range without a path has the path
// ["@items"] (or ["@keys"]), and a select on a node without a path has [field]. expr is null for the element
// node kube's list functions ask about (its type is the list's element type, its path the list's plus "@items").
struct SizeQuery {
  const CheckedAst* ast = nullptr;
  const Expr* expr = nullptr;
  std::span<const std::string> path;
  const Type* type = nullptr;
};
using NodeSizeEstimator = std::function<std::optional<SizeEstimate>(const SizeQuery& node)>;

struct CostOptions {
  SizeEstimator sizes;          // asked first, for nodes with an id
  NodeSizeEstimator node_sizes; // asked next (kube's sizeEstimator; see schema_size_estimator)
  bool type_size_hints = true;  // then Type::max_elements() of the node's type, as {0, n}
  // cel-go's PresenceTestHasCost. kube turns it off for every environment (base.go), so has() adds nothing.
  bool presence_test_has_cost = false;
};

// kube's CRD size estimator (apiextensions-apiserver schema/cel/compilation.go sizeEstimator): walks the path,
// less its first element (kube always starts from `self`'s type whatever the variable), through object fields,
// list elements ("@items"), map values ("@values") and keys ("@keys") of root, and answers {0, max_elements}
// of the type reached, 0 when that type has no hint; nullopt for an empty path or one that leaves the types.
// With this estimator and type_size_hints off, CRD estimates match kube's exactly.
NodeSizeEstimator schema_size_estimator(Type root);

// kube's options for a CRD rule (or messageExpression) on a schema whose CEL type is self_type: its schema size
// estimator, no type-hint fallback, no presence-test cost. self_type carries kube's DeclType.MaxElements as
// max_elements: maxItems / maxProperties / maxLength x 4, else the request-based maxima below; map keys and
// objects carry none (kube's 0). estimate_cost(ast, env, kube_crd_cost_options(self))
// is what kube's compileRule records as the rule's MaxCost.
CostOptions kube_crd_cost_options(Type self_type);

// The estimate with kube's settings: the given sizes, type hints, no presence-test cost.
CostEstimate estimate_cost(const CheckedAst& ast, const Env& env, const SizeEstimator& sizes = {});
CostEstimate estimate_cost(const CheckedAst& ast, const Env& env, const CostOptions& options);

// kube's serialized sizes (k8s.io/apiserver/pkg/cel/limits.go), for deriving size hints from schemas. A string
// with maxLength gets max_elements maxLength x 4 (kube counts bytes); see schemas.go.
namespace schema_sizes {
inline constexpr std::int64_t kMaxDurationSizeJson = 32;
inline constexpr std::int64_t kMaxDatetimeSizeJson = 32;
inline constexpr std::int64_t kMinDurationSizeJson = 3;
inline constexpr std::int64_t kJsonDateSize = 12;
inline constexpr std::int64_t kMinDatetimeSizeJson = 21;
inline constexpr std::int64_t kMinStringSize = 2;
inline constexpr std::int64_t kMinBoolSize = 4;
inline constexpr std::int64_t kMinNumberSize = 1;
inline constexpr std::int64_t kMaxFormatSize = 64;
inline constexpr std::int64_t kMaxNameFormatRegexSize = 128;
}  // namespace schema_sizes

// kube's maximum sizes from the request limit (apiserver/pkg/cel/common/schemas.go), for schema-derived types:
// lists without maxItems, maps without maxProperties, strings without maxLength, and kube's cardinality of data
// under unbounded lists and maps (apiextensions compilation.go maxCardinality). min_serialized_size is the
// smallest JSON size of one element (kube's DeclType.MinSerializedSize).
std::int64_t estimate_max_array_items(std::int64_t min_serialized_size);
std::int64_t estimate_max_additional_properties(std::int64_t min_serialized_size);
inline constexpr std::int64_t kMaxStringLengthPerRequest = cost_limits::kMaxRequestSizeBytes - 2;
std::uint64_t max_cardinality(std::int64_t min_serialized_size);

// What the run-time cost needs to know of an extension value that Opaque alone cannot say: cel-go's traits.Sizer
// (kube's IP reports 4 or 16 bytes, CIDR the bytes of its prefix length) and kube's Format.MaxRegexSize. An
// Opaque implementation also derives from this; call_cost finds it with dynamic_cast. Values that do not
// implement it count as size 1, as in cel-go.
class CostSized {
 public:
  virtual ~CostSized() = default;
  virtual std::optional<std::uint64_t> cost_size() const { return std::nullopt; }
  virtual std::optional<std::uint64_t> max_regex_size() const { return std::nullopt; }
};

// The run-time cost of one call once its result is known; 1 for most functions, size-based for string and list
// work and for kube's libraries.
//
// What the interpreter passes: function is the name as called ("_+_", "contains", "sets.contains"); overload_id
// is the checker's overload id when the reference names exactly one, else empty (cel-go's planner then knows no
// id and charges 1 unless kube's table knows the function by name); `_==_` and `_!=_` always pass "equals" and
// "not_equals". args include the receiver first, as the implementation received them.
//
// What the interpreter adds itself (cel-go's CostObserver: runtimecost.go with the planner's attributes), per
// evaluated node, with kube's program options (PresenceTestHasCost(false), OptOptimize):
//  - constants, type names and enum constants: 0.
//  - an identifier naming a variable or comprehension variable: 1.
//  - `op.f` (not has()): 1, plus 1 more when op is not itself an "attribute" (an identifier, select, has(),
//    index, optional select/index or ternary; anything else - a call, literal, comprehension - is wrapped).
//  - `op[i]`, `op[?i]`, `op.?f`: the same as a select for op, and for the index: 1 when i is a constant, i's
//    cost when i is an attribute (its own identifier is not charged, the qualifier is), i's cost + 1 otherwise.
//    No call_cost for these operators.
//  - has(op.f): op's cost, plus 1 when op is not an attribute (presence itself is free in kube).
//  - `c ? a : b`: c, then the branch taken; a branch that is an attribute is not charged its root identifier
//    (only its selects and indexes): `c ? x : y` costs c alone, `c ? x.f : y` costs c + 1 when c is true.
//  - `a && b`, `a || b`: the terms evaluated (left to right, stopping as CEL short-circuits); no call_cost.
//  - list literal: elements + 10; map literal: entries + 30; message literal: fields + 40.
//  - kube's OptOptimize folds constants when planning, bottom up, and folded nodes cost 0: a call of a
//    conversion (bool, bytes, double, duration, dyn, int, string, timestamp, type, uint) on a constant; a list
//    or map literal whose elements, keys and values are all constants (after folding); and `x in <folded list>`
//    whose elements are all primitives other than bytes costs x only (a set look-up, no call_cost). cel-go's
//    own tables (runtimecost_test.go) are without it: `[1, 2, 3].all(x, true)` costs 20 there, 10 in kube.
//  - comprehension: iter range + accumulator init once, then per iteration the loop condition and, unless it
//    stopped the loop, the step; then the result. The macros' helper calls (@not_strictly_false, `_+_` of
//    map/filter, `_?_:_`) are ordinary calls and nodes.
//  - every other call: its arguments' costs (receiver first) + call_cost(...).
// The limit is checked after each charge: evaluation stops as soon as the running total exceeds it.
std::uint64_t call_cost(std::string_view function, std::string_view overload_id, std::span<const Value> args,
                        const Value& result);

// How call_cost prices the calls of one function and overload, resolved once per call site when a program is
// planned (the interpreter keeps it in the planned node), so evaluation does not look names up on every call.
enum class CallCostRule : std::uint8_t {
  kOne,                   // every function no rule names
  kAuthorizerCheck,       // authz check(): kube's fixed 350000
  kSetsProduct,           // sets.contains / sets.intersects: 1 + |a|·|b|
  kSetsProductTwice,      // sets.equivalent: 1 + 2·|a|·|b|
  kSelector,              // authz fieldSelector / labelSelector: kube's selector estimate of the string
  kTraversal,             // kube's lists: the traversal cost of the receiver
  kFirstScaled,           // a tenth per code point of the first argument, rounded up
  kFirstTwiceScaled,      // twice that (a traversal and a result of that size)
  kResultTwiceScaled,     // join: twice the result's size
  kRegexFirstTwo,         // find, findAll: the regex cost of the text and the pattern
  kContainsIp,            // cidr.containsIP(ip)
  kContainsIpString,      // cidr.containsIP(string)
  kContainsCidr,          // cidr.containsCIDR(cidr)
  kContainsCidrString,    // cidr.containsCIDR(string)
  kFormatValidate,        // format.validate: the regex cost against the format's largest pattern
  kEqualsKubeOrSmaller,   // _==_: 1 for kube's extension values, else as kSmallerScaled
  kSmallerScaled,         // comparisons: a tenth per element of the smaller operand
  kInList,                // x in list: the list's size
  kBothScaled,            // string and bytes concatenation: both operands
  kMatches,               // matches: the regex cost of the text and the pattern
  kContainsString,        // contains: the product of both scaled sizes
};

CallCostRule call_cost_rule(std::string_view function, std::string_view overload_id);
std::uint64_t call_cost(CallCostRule rule, std::span<const Value> args, const Value& result);

// cel-go's runtime size of a value (traits.Sizer): code points of a string, bytes, list and map entries,
// CostSized::cost_size of an extension value; 1 for everything else.
std::uint64_t actual_size(const Value& value);

}  // namespace kapi::cel
