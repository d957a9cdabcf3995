// kube 1.32's static call estimates (k8s.io/apiserver/pkg/cel/library/cost.go EstimateCallCost), keyed by function
// name (and overload id where kube looks at it) for kube's libraries: authz, lists, strings extensions, urls,
// regex, ip, cidr, quantity, format, selectors, JSONPatch, and equality of kube's types.
// cel-go always hands kube a target pointer, so kube's `target != nil` tests are always true; member functions
// read the receiver, global ones their arguments.
#include <cmath>
#include <initializer_list>
#include <string_view>

#include "cel/cost/estimate_parts.h"

namespace kapi::cel::cost_internal {
namespace {

using cost_units::kRegexStringLengthFactor;
using cost_units::kStringTraversalFactor;

bool one_of(std::string_view name, std::initializer_list<std::string_view> names) {
  for (std::string_view candidate : names) {
    if (candidate == name) return true;
  }
  return false;
}

CallEstimate fixed(std::uint64_t cost) { return CallEstimate{{cost, cost}, std::nullopt}; }

// kube's selectorCostEstimate: a selector string parses into requirements, each a struct and a values list.
CostEstimate selector_cost(SizeEstimate selector_length) {
  const CostEstimate parse = multiply_by_cost_factor(selector_length, kStringTraversalFactor);
  const CostEstimate requirements = multiply_by_cost_factor(selector_length, 0.5);
  const CostEstimate requirement_cost =
      multiply_by_cost_factor(requirements, static_cast<double>(cost_units::kListCreateBase + cost_units::kStructCreateBase));
  return add(add(CostEstimate{cost_units::kListCreateBase, cost_units::kListCreateBase}, parse), requirement_cost);
}

// Go's conversion of a float64 above the uint64 range is implementation-defined; amd64 gives 2^63.
std::uint64_t go_float_to_uint64(double value) {
  if (value >= 0x1p64 || value != value) return 0x8000000000000000ull;
  if (value < 0) return static_cast<std::uint64_t>(static_cast<std::int64_t>(value));
  return static_cast<std::uint64_t>(value);
}

// kube's replace result size: the most and fewest replacements times the replacement, plus what is kept.
SizeEstimate replace_result_size(SizeEstimate text, SizeEstimate to_replace, SizeEstimate replace_with) {
  SizeEstimate count;
  SizeEstimate retained;
  if (to_replace.min == 0) {
    count.max = text.max < kUnbounded ? text.max + 1 : text.max;  // "" surrounds every character
    retained.max = text.max;
  } else if (replace_with.max <= to_replace.min) {
    count.max = 0;
    retained.max = text.max;
  } else {
    count.max = go_float_to_uint64(std::ceil(static_cast<double>(text.max) / static_cast<double>(to_replace.min)));
  }
  if (to_replace.max == 0) {
    count.min = text.min < kUnbounded ? text.min + 1 : text.min;
    retained.min = text.min;
  } else if (to_replace.max <= replace_with.min) {
    count.min = 0;
    retained.min = text.min;
  } else {
    count.min = go_float_to_uint64(std::ceil(static_cast<double>(text.min) / static_cast<double>(to_replace.max)));
  }
  return add(multiply(count, replace_with), retained);
}

std::optional<CallEstimate> equality_estimate(std::span<const Node> args) {
  if (args.size() != 2 || args[0].type == nullptr || args[1].type == nullptr) return std::nullopt;
  if (!(*args[0].type == *args[1].type)) return std::nullopt;
  const std::string_view name = args[0].type->name();
  if (one_of(name, {"net.IP", "net.CIDR", "kubernetes.Quantity", "kubernetes.authorization.Authorizer",
                    "kubernetes.authorization.PathCheck", "kubernetes.authorization.GroupCheck",
                    "kubernetes.authorization.ResourceCheck", "kubernetes.authorization.Decision",
                    "kubernetes.Semver"})) {
    return fixed(1);
  }
  if (name == "kubernetes.NamedFormat") {
    return CallEstimate{
        multiply_by_cost_factor(CostEstimate{1, schema_sizes::kMaxFormatSize}, kStringTraversalFactor), std::nullopt};
  }
  if (name == "kubernetes.URL") {
    // kube reads the right-hand side's computed size twice (for both sides).
    SizeEstimate size{1, 1};
    if (auto rhs = args[1].computed_size()) size = union_of(*rhs, *rhs);
    return CallEstimate{multiply_by_cost_factor(CostEstimate{1, size.max}, kStringTraversalFactor), std::nullopt};
  }
  return std::nullopt;
}

}  // namespace

std::optional<CallEstimate> kube_call_estimate(const Sizes& sizes, std::string_view function,
                                               std::string_view overload_id, const Node* target,
                                               std::span<const Node> args) {
  // kube dereferences the receiver of member functions; a global call of those names has none to read.
  const Node no_receiver;
  const Node& receiver = target != nullptr ? *target : no_receiver;
  auto traversal = [](SizeEstimate size) { return multiply_by_cost_factor(size, kStringTraversalFactor); };

  if (function == "check") return fixed(350000);  // allows two authorization checks per expression
  if (one_of(function, {"serviceAccount", "path", "group", "resource", "subresource", "namespace", "name", "allowed",
                        "reason", "error", "errored"})) {
    return fixed(1);
  }
  if (function == "fieldSelector" || function == "labelSelector") {
    if (args.size() == 1) return CallEstimate{selector_cost(sizes.size(args[0])), std::nullopt};
    return std::nullopt;
  }
  if (one_of(function, {"isSorted", "sum", "max", "min", "indexOf", "lastIndexOf"})) {
    if (auto element = sizes.list_element(receiver)) {
      // One comparison per element, plus a traversal of string and bytes elements.
      CostEstimate element_cost = kUnitCost;
      const TypeKind kind = element->type->kind();
      if (kind == TypeKind::kString || kind == TypeKind::kBytes) {
        element_cost = add(element_cost, traversal(sizes.size(*element)));
      }
      return CallEstimate{multiply_by_cost(sizes.size(receiver), element_cost), std::nullopt};
    }
    return CallEstimate{traversal(sizes.size(receiver)), std::nullopt};  // indexOf on a string
  }
  if (function == "url" || function == "jsonpatch.escapeKey") {
    if (args.size() != 1) return std::nullopt;
    const SizeEstimate size = sizes.size(args[0]);
    return CallEstimate{traversal(size), size};
  }
  if (one_of(function, {"lowerAscii", "upperAscii", "substring", "trim"})) {
    const SizeEstimate size = sizes.size(receiver);
    return CallEstimate{traversal(size), size};
  }
  if (function == "replace") {
    if (args.size() < 2) return std::nullopt;
    const SizeEstimate size = sizes.size(receiver);
    const SizeEstimate result = replace_result_size(size, sizes.size(args[0]), sizes.size(args[1]));
    return CallEstimate{multiply_by_cost_factor(size, 2 * kStringTraversalFactor), result};
  }
  if (function == "split") {
    const SizeEstimate size = sizes.size(receiver);
    // At worst every character is an element, unless a literal limit says fewer.
    std::uint64_t max = size.max;
    if (args.size() > 1 && args[1].expr != nullptr) {
      if (const auto* constant = std::get_if<Constant>(&args[1].expr->kind)) {
        if (const auto* limit = std::get_if<std::int64_t>(constant)) max = static_cast<std::uint64_t>(*limit);
      }
    }
    return CallEstimate{multiply_by_cost_factor(size, 2 * kStringTraversalFactor), SizeEstimate{0, max}};
  }
  if (function == "join") {
    const SizeEstimate list_size = sizes.size(receiver);
    SizeEstimate size;
    if (auto element = sizes.list_element(receiver)) size = multiply(list_size, sizes.size(*element));
    if (!args.empty()) {
      const SizeEstimate separators{list_size.min > 0 ? list_size.min - 1 : 0, list_size.max > 0 ? list_size.max - 1 : 0};
      size = add(size, multiply(sizes.size(args[0]), separators));
    }
    return CallEstimate{traversal(size), size};
  }
  if (function == "find" || function == "findAll") {
    if (args.empty()) return std::nullopt;
    const SizeEstimate size = sizes.size(receiver);
    const CostEstimate string_cost = multiply_by_cost_factor(add(size, SizeEstimate{1, 1}), kStringTraversalFactor);
    const CostEstimate regex_cost = multiply_by_cost_factor(sizes.size(args[0]), kRegexStringLengthFactor);
    // At worst every character is a separate match.
    return CallEstimate{multiply(string_cost, regex_cost), SizeEstimate{0, size.max}};
  }
  if (one_of(function, {"cidr", "isIP", "isCIDR", "quantity", "isQuantity"})) {
    if (args.empty()) return std::nullopt;
    return CallEstimate{traversal(sizes.size(args[0])), std::nullopt};
  }
  if (function == "ip") {
    if (!args.empty()) {
      if (overload_id == "cidr_ip") return fixed(1);  // the CIDR's address: a field read
      return CallEstimate{traversal(sizes.size(args[0])), std::nullopt};
    }
    return fixed(1);
  }
  if (function == "ip.isCanonical") {
    if (args.empty()) return std::nullopt;
    // Parse, then compare with the original: twice a traversal.
    return CallEstimate{multiply_by_cost_factor(sizes.size(args[0]), 2 * kStringTraversalFactor), std::nullopt};
  }
  if (one_of(function, {"masked", "prefixLength", "family", "isUnspecified", "isLoopback", "isLinkLocalMulticast",
                        "isLinkLocalUnicast", "isGlobalUnicast"})) {
    return fixed(1);
  }
  if (function == "containsIP" || function == "containsCIDR") {
    if (args.empty()) return std::nullopt;
    // Comparing two addresses of 4 (IPv4) to 16 (IPv6) bytes.
    const SizeEstimate address{4, 16};
    CostEstimate cost = traversal(add(address, address));
    if (function == "containsCIDR") cost = add(add(cost, traversal(address)), kUnitCost);  // mask and prefix bits
    if (overload_id == "cidr_contains_ip_string" || overload_id == "cidr_contains_cidr_string") {
      cost = add(cost, traversal(sizes.size(args[0])));  // parsing the string argument
    }
    return CallEstimate{cost, std::nullopt};
  }
  if (function == "validate") {
    if (args.empty()) return std::nullopt;
    constexpr auto kMaxNameFormatRegexSize = static_cast<double>(schema_sizes::kMaxNameFormatRegexSize);
    return CallEstimate{multiply_by_cost_factor(traversal(sizes.size(args[0])),
                                                kMaxNameFormatRegexSize * kRegexStringLengthFactor),
                        std::nullopt};
  }
  if (function == "format.named") return fixed(1);
  if (one_of(function, {"sign", "asInteger", "isInteger", "asApproximateFloat", "isGreaterThan", "isLessThan",
                        "compareTo", "add", "sub"})) {
    return fixed(1);
  }
  if (one_of(function, {"getScheme", "getHostname", "getHost", "getPort", "getEscapedPath", "getQuery"})) {
    return fixed(1);
  }
  if (function == "_==_") return equality_estimate(args);
  return std::nullopt;
}

}  // namespace kapi::cel::cost_internal
