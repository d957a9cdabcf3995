#pragma once
// YAML request bodies (Content-Type: application/yaml) as kube-apiserver reads them: its YAML serializer turns
// the body into JSON with sigs.k8s.io/yaml (go-yaml v2 underneath, YAML 1.1 typing, the first document only,
// object keys sorted as Go's encoding/json writes a map) and decodes that JSON. kapi parses with yaml-cpp and
// resolves every scalar as go-yaml v2 does, with go-yaml's protections: a bound on alias expansion ("billion
// laughs") relative to the document's own size, and a bound on nesting.
#include <boost/json/value.hpp>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace kapi::schema {

// A body that is not YAML kube would read; what() is go-yaml's wording ("yaml: line 3: mapping values are not
// allowed in this context", "yaml: document contains excessive aliasing").
class YamlError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct YamlLimits {
  std::size_t max_depth = 1000;  // nested mappings and sequences
};

struct YamlDocument {
  boost::json::value value;  // null for an empty document
  // What go-yaml's strict mode reports for a key repeated in one mapping (the later value wins, as without
  // strict mode): "line 5: key \"name\" already set in map", in document order.
  std::vector<std::string> duplicate_keys;
};

// Converts the first document of `yaml` to JSON values: plain scalars typed as go-yaml v2 resolves them
// (null/~/empty → null; true/yes/on/y, false/no/off/n → bool; decimal, 0x, 0o, 0b and leading-0 octal integers;
// floats; integral floats become integers, as Go writes them), quoted scalars as strings, keys as strings, merge
// keys (<<) applied. Throws YamlError.
YamlDocument yaml_to_json(std::string_view yaml, const YamlLimits& limits = {});

// go-yaml strict mode's error for duplicate keys, as one message: "yaml: unmarshal errors:\n  line 5: ...".
std::string yaml_unmarshal_errors(const std::vector<std::string>& duplicate_keys);

}  // namespace kapi::schema
