#pragma once
// The JSONPath subset CRD printer columns and scale paths use (client-go's jsonpath, as kube evaluates a
// column's `{<jsonPath>}` template): `.field`, `['field']`, `[n]`, `[*]` and `[?(@.key=="value")]` filters.
#include <boost/json/value.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kapi::apiextensions {

class JsonPath {
 public:
  // Returns nullopt for a path outside the subset.
  static std::optional<JsonPath> parse(std::string_view path);

  // Every value the path leads to, in document order.
  std::vector<const boost::json::value*> find(const boost::json::value& root) const;

  // For paths made of field names alone (".spec.replicas"): the names, for writing at that path.
  std::optional<std::vector<std::string>> field_names() const;

 private:
  struct Step {
    enum class Kind { Field, Index, Wildcard, Filter } kind = Kind::Field;
    std::string name;  // Field: the member; Filter: the member compared
    long index = 0;    // Index
    std::vector<std::string> filter_path;  // Filter: @.a.b
    boost::json::value filter_value;       // Filter: the literal compared with ==
  };
  std::vector<Step> steps_;
};

}  // namespace kapi::apiextensions
