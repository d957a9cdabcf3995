// Fuzzes kapi's reading of YAML request bodies (server/schema/yaml_to_json.h), which follows kube-apiserver's YAML
// serializer: sigs.k8s.io/yaml over go-yaml v2 (YAML 1.1 typing, the first document only, merge keys, go-yaml's
// alias-expansion and nesting guards) turning the body into JSON that the JSON decoder then reads. The nesting
// bound is lowered so that small inputs reach it; the JSON is written out and read back as kube's decoder would.
//
// YamlError is what the header documents for a body kube would refuse; anything else escaping (yaml-cpp's own
// exceptions included, which the converter must translate), a crash, a sanitizer report, an input that outlasts
// libFuzzer's -timeout (an alias bomb the guards let through) or JSON that cannot be read back is a finding.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include "server/schema/yaml_to_json.h"
#include "tests/fuzz/finding.h"

namespace {

using kapi::fuzz::finding;

constexpr kapi::schema::YamlLimits kLimits{.max_depth = 64};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view yaml(reinterpret_cast<const char*>(data), size);
  kapi::schema::YamlDocument document;
  try {
    document = kapi::schema::yaml_to_json(yaml, kLimits);
  } catch (const kapi::schema::YamlError&) {
    return 0;
  }
  if (!document.duplicate_keys.empty()) kapi::schema::yaml_unmarshal_errors(document.duplicate_keys);

  // Go's encoding/json writes what the conversion holds, and the decoder must read it: no NaN or infinity, no
  // depth past the bound. Strings are YAML's bytes, which need not be UTF-8 (Go's decoder replaces what is not).
  const std::string json = boost::json::serialize(document.value);
  boost::json::parse_options options;
  options.max_depth = kLimits.max_depth + 1;
  options.allow_invalid_utf8 = true;
  boost::system::error_code error;
  boost::json::parse(json, error, {}, options);
  if (error) finding("the converted document is not JSON: " + error.message() + ": " + json);
  return 0;
}
