// The run-time cost of one call: cel-go v0.22's CostTracker.costCall (interpreter/runtimecost.go), after the
// overload trackers cel-go's ext.Sets() installs and kube 1.32's CallCost (apiserver/pkg/cel/library/cost.go), in
// the order cel-go consults them.
#include <cmath>
#include <initializer_list>
#include <vector>

#include "base/utf8.h"
#include "cel/cost.h"

namespace kapi::cel {
namespace {

using cost_units::kRegexStringLengthFactor;
using cost_units::kStringTraversalFactor;

bool one_of(std::string_view name, std::initializer_list<std::string_view> names) {
  for (std::string_view candidate : names) {
    if (candidate == name) return true;
  }
  return false;
}

// ceil(size * factor) as Go computes it in float64.
std::uint64_t scaled(std::uint64_t size, double factor) {
  return static_cast<std::uint64_t>(std::ceil(static_cast<double>(size) * factor));
}

// kube writes `float64(n) * 2 * factor`: the same product, in Go's evaluation order.
std::uint64_t scaled_twice(std::uint64_t size) {
  return static_cast<std::uint64_t>(std::ceil(static_cast<double>(size) * 2 * kStringTraversalFactor));
}

std::uint64_t regex_cost(std::uint64_t text_size, std::uint64_t pattern_size) {
  const auto string_cost = static_cast<std::uint64_t>(std::ceil((1.0 + static_cast<double>(text_size)) * kStringTraversalFactor));
  const auto pattern_cost = static_cast<std::uint64_t>(std::ceil(static_cast<double>(pattern_size) * kRegexStringLengthFactor));
  return string_cost * pattern_cost;
}

const CostSized* cost_sized(const Value& value) {
  if (const auto* opaque = value.get_if<std::shared_ptr<const Opaque>>(); opaque != nullptr && *opaque) {
    return dynamic_cast<const CostSized*>(opaque->get());
  }
  return nullptr;
}

// kube's traversalCost: a tenth per byte of each string (rounded down), 1 per other leaf, over lists and maps
// (keys and values). Walked with an explicit stack: request data can nest deeply.
std::uint64_t traversal_cost(const Value& root) {
  std::uint64_t cost = 0;
  std::vector<Value> pending{root};
  while (!pending.empty()) {
    const Value value = std::move(pending.back());
    pending.pop_back();
    if (const auto* text = value.get_if<std::string>()) {
      cost += static_cast<std::uint64_t>(static_cast<double>(text->size()) * kStringTraversalFactor);
    } else if (const auto* bytes = value.get_if<Bytes>()) {
      cost += static_cast<std::uint64_t>(static_cast<double>(bytes->data.size()) * kStringTraversalFactor);
    } else if (const List* list = value.as_list()) {
      for (std::size_t i = 0; i < list->size(); ++i) pending.push_back(list->at(i));
    } else if (const Map* map = value.as_map()) {
      for (std::size_t i = 0; i < map->size(); ++i) {
        Value key = map->key_at(i);
        if (auto entry = map->find(key)) pending.push_back(std::move(*entry));
        pending.push_back(std::move(key));
      }
    } else {
      cost += 1;
    }
  }
  return cost;
}

bool is_kube_type(const Value& value) {
  const auto* opaque = value.get_if<std::shared_ptr<const Opaque>>();
  if (opaque == nullptr || !*opaque) return false;
  return one_of((*opaque)->type_name(),
                {"kubernetes.Quantity", "net.IP", "net.CIDR", "kubernetes.NamedFormat", "kubernetes.URL",
                 "kubernetes.Semver", "kubernetes.authorization.Authorizer", "kubernetes.authorization.PathCheck",
                 "kubernetes.authorization.GroupCheck", "kubernetes.authorization.ResourceCheck",
                 "kubernetes.authorization.Decision"});
}

// kube's selectorCostEstimate for an exact length: base list, parse, and a struct and list per requirement.
std::uint64_t selector_cost(std::uint64_t length) {
  const std::uint64_t parse = scaled(length, kStringTraversalFactor);
  const std::uint64_t requirements = scaled(length, 0.5);
  const std::uint64_t requirement_cost =
      scaled(requirements, static_cast<double>(cost_units::kListCreateBase + cost_units::kStructCreateBase));
  return cost_units::kListCreateBase + parse + requirement_cost;
}

}  // namespace

std::uint64_t actual_size(const Value& value) {
  if (const auto* text = value.get_if<std::string>()) {
    std::uint64_t count = 0;
    for (std::string_view rest = *text; !rest.empty(); ++count) rest.remove_prefix(base::decode_rune(rest).width);
    return count;
  }
  if (const auto* bytes = value.get_if<Bytes>()) return bytes->data.size();
  if (const List* list = value.as_list()) return list->size();
  if (const Map* map = value.as_map()) return map->size();
  if (const CostSized* sized = cost_sized(value)) return sized->cost_size().value_or(1);
  return 1;
}

CallCostRule call_cost_rule(std::string_view function, std::string_view overload_id) {
  using enum CallCostRule;
  // ext.Sets' trackers first, then kube's CallCost by function, then cel-go's by overload, as cel-go asks them.
  if (overload_id == "list_sets_contains_list" || overload_id == "list_sets_intersects_list") return kSetsProduct;
  if (overload_id == "list_sets_equivalent_list") return kSetsProductTwice;
  if (function == "check") return kAuthorizerCheck;
  if (one_of(function, {"serviceAccount", "path", "group", "resource", "subresource", "namespace", "name", "allowed",
                        "reason", "error", "errored", "masked", "prefixLength", "family", "isUnspecified",
                        "isLoopback", "isLinkLocalMulticast", "isLinkLocalUnicast", "isGlobalUnicast", "format.named",
                        "sign", "asInteger", "isInteger", "asApproximateFloat", "isGreaterThan", "isLessThan",
                        "compareTo", "add", "sub", "getScheme", "getHostname", "getHost", "getPort", "getEscapedPath",
                        "getQuery"})) {
    return kOne;
  }
  if (function == "fieldSelector" || function == "labelSelector") return kSelector;
  if (one_of(function, {"isSorted", "sum", "max", "min", "indexOf", "lastIndexOf"})) return kTraversal;
  if (one_of(function, {"url", "lowerAscii", "upperAscii", "substring", "trim", "jsonpatch.escapeKey", "cidr", "isIP",
                        "isCIDR", "quantity", "isQuantity"})) {
    return kFirstScaled;
  }
  if (function == "ip") return overload_id == "cidr_ip" ? kOne : kFirstScaled;  // a CIDR's address: a field read
  if (function == "replace" || function == "split" || function == "ip.isCanonical") return kFirstTwiceScaled;
  if (function == "join") return kResultTwiceScaled;
  if (function == "find" || function == "findAll") return kRegexFirstTwo;
  if (function == "containsIP") return overload_id == "cidr_contains_ip_string" ? kContainsIpString : kContainsIp;
  if (function == "containsCIDR") {
    return overload_id == "cidr_contains_cidr_string" ? kContainsCidrString : kContainsCidr;
  }
  if (function == "validate") return kFormatValidate;
  if (one_of(overload_id, {"starts_with_string", "ends_with_string", "string_to_bytes", "bytes_to_string",
                           "strings_quote", "string_format"})) {
    return kFirstScaled;
  }
  if (overload_id == "in_list") return kInList;
  if (function == "_==_" && overload_id == "equals") return kEqualsKubeOrSmaller;
  if (one_of(overload_id, {"less_string", "greater_string", "less_equals_string", "greater_equals_string",
                           "less_bytes", "greater_bytes", "less_equals_bytes", "greater_equals_bytes", "equals",
                           "not_equals"})) {
    return kSmallerScaled;
  }
  if (overload_id == "add_string" || overload_id == "add_bytes") return kBothScaled;
  if (overload_id == "matches_string") return kMatches;
  if (overload_id == "contains_string") return kContainsString;
  return kOne;
}

std::uint64_t call_cost(CallCostRule rule, std::span<const Value> args, const Value& result) {
  using enum CallCostRule;
  // A rule that needs more arguments than the call has falls back to cel-go's default of 1.
  auto size_of = [&](std::size_t i) { return actual_size(args[i]); };
  const std::size_t n = args.size();
  switch (rule) {
    case kOne:
      return 1;
    case kAuthorizerCheck:
      return 350000;
    case kSetsProduct:
    case kSetsProductTwice: {
      if (n < 2) return 1;
      const double factor = rule == kSetsProduct ? 1 : 2;
      return 1 + static_cast<std::uint64_t>(static_cast<double>(size_of(0) * size_of(1)) * factor);
    }
    case kSelector:
      return n < 2 ? 1 : selector_cost(size_of(1));
    case kTraversal:
      return n == 0 ? 0 : traversal_cost(args[0]);
    case kFirstScaled:
      return n == 0 ? 1 : scaled(size_of(0), kStringTraversalFactor);
    case kFirstTwiceScaled:
      return n == 0 ? 1 : scaled_twice(size_of(0));  // the traversal and building the result
    case kResultTwiceScaled:
      return n == 0 ? 1 : scaled_twice(actual_size(result));
    case kRegexFirstTwo:
    case kMatches:
      return n < 2 ? 1 : regex_cost(size_of(0), size_of(1));
    case kContainsIp:
    case kContainsIpString:
    case kContainsCidr:
    case kContainsCidrString: {
      if (n < 2) return 1;
      const std::uint64_t cidr_size = size_of(0);
      // Compares up to the prefix's bytes of both addresses.
      std::uint64_t cost = scaled(cidr_size + cidr_size, kStringTraversalFactor);
      if (rule == kContainsCidr || rule == kContainsCidrString) cost += scaled(cidr_size, kStringTraversalFactor) + 1;
      if (rule == kContainsIpString || rule == kContainsCidrString)
        cost += scaled(size_of(1), kStringTraversalFactor);  // parsing the string argument
      return cost;
    }
    case kFormatValidate: {
      if (n < 2) return 1;
      const CostSized* format = cost_sized(args[0]);
      if (format == nullptr || !format->max_regex_size()) return 1;
      return regex_cost(size_of(1), *format->max_regex_size());
    }
    case kEqualsKubeOrSmaller:
      if (n == 2 && is_kube_type(args[0])) return 1;
      [[fallthrough]];
    case kSmallerScaled: {
      // Scalars have size 1: comparing them costs 1.
      const std::uint64_t lhs = n > 0 ? size_of(0) : 1;
      const std::uint64_t rhs = n > 1 ? size_of(1) : 1;
      return scaled(rhs < lhs ? rhs : lhs, kStringTraversalFactor);
    }
    case kInList:
      return n > 1 ? size_of(1) : 1;
    case kBothScaled:
      return scaled((n > 0 ? size_of(0) : 1) + (n > 1 ? size_of(1) : 1), kStringTraversalFactor);
    case kContainsString:
      return scaled(n > 0 ? size_of(0) : 1, kStringTraversalFactor) *
             scaled(n > 1 ? size_of(1) : 1, kStringTraversalFactor);
  }
  return 1;
}

std::uint64_t call_cost(std::string_view function, std::string_view overload_id, std::span<const Value> args,
                        const Value& result) {
  return call_cost(call_cost_rule(function, overload_id), args, result);
}

}  // namespace kapi::cel
