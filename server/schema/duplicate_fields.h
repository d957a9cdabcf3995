#pragma once
// Duplicate keys in a JSON body, as kube's strict decoder (sigs.k8s.io/json) reports them. Boost.JSON keeps the
// last of a repeated key silently (as Go's decoder does); fieldValidation still has to hear about it.
#include <string>
#include <string_view>
#include <vector>

namespace kapi::schema {

// The strict decoding errors of a JSON body, in the order Go's decoder meets them: `duplicate field "p"` for a key
// repeated within one object ("spec.template.spec.containers[0].imagePullPolicy") and `unknown field "p"` for each
// of `unknown_paths` (conform()'s, in its order), merged in document order, each message once. A key that is
// unknown is reported as unknown only, and nothing inside an unknown field's value is looked at, as Go skips it.
// A body without repeated keys costs one simdjson parse and no path strings.
std::vector<std::string> strict_decoding_errors(std::string_view json, const std::vector<std::string>& unknown_paths);

}  // namespace kapi::schema
