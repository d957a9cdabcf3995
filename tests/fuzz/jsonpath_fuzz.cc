// Fuzzes the JSONPath subset of CRD printer columns and scale paths (server/apiextensions/jsonpath.h), which kapi
// evaluates where kube-apiserver runs client-go's jsonpath over a column's `{<jsonPath>}` template
// (apiextensions-apiserver/pkg/registry/customresource/tableconvertor): the parser (fields, quoted names, indices,
// wildcards, `[?(@.a.b==<literal>)]` filters) and the evaluation against a decoded object.
//
// The input is the template, a NUL byte, then the JSON document; without a NUL it is all template, evaluated
// against a fixed custom resource. A document that is not JSON is no stored object and is skipped.
//
// parse() documents nullopt for a path outside the subset and nothing else; any exception escaping, a crash, a
// sanitizer report or a timeout is a finding. So is a path of field names alone (what scale paths write through)
// that finds a value other than the one its names lead to, or more than one.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

#include "server/apiextensions/jsonpath.h"
#include "tests/fuzz/finding.h"

namespace {

using kapi::fuzz::finding;

using kapi::apiextensions::JsonPath;

constexpr std::string_view kCronTab = R"({"apiVersion":"stable.example.com/v1","kind":"CronTab",
  "metadata":{"name":"c","namespace":"default","creationTimestamp":"2024-05-01T10:00:00Z","labels":{"a.b/c":"d"}},
  "spec":{"replicas":3,"a.b":"dotted","size":"small","tags":["x","y",null,1.5],"nested":[[1,2],[3,[4]]]},
  "status":{"replicas":2,"selector":"app=web","conditions":[{"type":"Ready","status":"True"},
                                                           {"type":"Synced","status":"False","count":2}]}})";

// Registry objects may nest this deep (registry::kMaxObjectDepth).
constexpr std::size_t kMaxDepth = 1000;

const boost::json::value* walk(const boost::json::value& root, const std::vector<std::string>& names) {
  const boost::json::value* value = &root;
  for (const std::string& name : names) {
    value = value->is_object() ? value->as_object().if_contains(name) : nullptr;
    if (!value) return nullptr;
  }
  return value;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::size_t nul = input.find('\0');
  const std::string_view text = nul == std::string_view::npos ? input : input.substr(0, nul);
  const std::string_view document_json = nul == std::string_view::npos ? kCronTab : input.substr(nul + 1);

  boost::json::parse_options options;
  options.max_depth = kMaxDepth;
  boost::system::error_code error;
  const boost::json::value document = boost::json::parse(document_json, error, {}, options);
  if (error) return 0;

  const std::optional<JsonPath> path = JsonPath::parse(text);
  if (!path) return 0;
  const std::vector<const boost::json::value*> found = path->find(document);
  // What a table cell prints of each value (the text client-go's jsonpath writes), so that every pointer is read.
  for (const boost::json::value* value : found) boost::json::serialize(*value);

  if (const auto names = path->field_names()) {
    const boost::json::value* expected = walk(document, *names);
    if (found.size() > 1) finding("a path of field names finds several values", text);
    if ((found.empty() ? nullptr : found.front()) != expected) finding("field names lead elsewhere than find()", text);
  }
  return 0;
}
