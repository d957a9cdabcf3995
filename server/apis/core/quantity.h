#pragma once
// resource.Quantity's value (k8s.io/apimachinery/pkg/api/resource), exactly, for the sums and comparisons the
// core strategies make (a pod's QoS class, requests against limits): "500m", "1.5Gi", "2e3", "128974848".
#include <optional>
#include <string_view>

namespace kapi::apis::core {

// A quantity in billionths, the finest scale kube keeps (finer values round up, as kube rounds them).
__extension__ typedef __int128 Nanos;

// std::nullopt when `text` is not a quantity (kube: "quantities must match the regular expression ...").
std::optional<Nanos> parse_quantity(std::string_view text);

}  // namespace kapi::apis::core
