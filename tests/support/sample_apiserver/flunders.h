#pragma once
// What the sample extension API server serves: the wardle.example.com/v1alpha1 group with one namespaced,
// read-only resource, flunders (kind Flunder), holding a few fixed objects. Pure functions from a request's
// parameters to JSON documents, so the HTTP side (sample_apiserver.cc) only routes and frames them.
#include <boost/json.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kapi::sample_apiserver {

inline constexpr std::string_view kGroup = "wardle.example.com";
inline constexpr std::string_view kVersion = "v1alpha1";
inline constexpr std::string_view kGroupVersion = "wardle.example.com/v1alpha1";
inline constexpr std::string_view kResource = "flunders";

// The fixed flunders, in name order within their namespace; each a complete object (kind, apiVersion, metadata).
const std::vector<boost::json::object>& flunders();
// The resourceVersion lists report: the newest object's.
std::string list_resource_version();
// The flunders in `namespace_` (every namespace when empty) whose name is `name` (any when empty).
std::vector<boost::json::object> select(std::string_view namespace_, std::string_view name);

// Legacy discovery: /apis (APIGroupList), /apis/<group> (APIGroup), /apis/<group>/<version> (APIResourceList).
std::string group_list_document();
std::string group_document();
std::string resource_list_document();
// Aggregated discovery of /apis for apidiscovery.k8s.io/<version> ("v2" or "v2beta1").
std::string aggregated_discovery_document(std::string_view discovery_version);
// The aggregated discovery version an Accept header asks for first ("v2", "v2beta1"), or "" for the legacy
// documents; the Content-Type that answers it.
std::string aggregated_discovery_version(std::string_view accept);
std::string aggregated_discovery_content_type(std::string_view discovery_version);

// The meta.k8s.io Table version ("v1", "v1beta1") an Accept header asks for first, or "" for plain objects.
std::string table_version(std::string_view accept);
// kube's table convertor output for `objects` (columns Name and Age, rows with PartialObjectMetadata); the column
// definitions are left out when !headers (later watch events, as kube's watch encoder does).
boost::json::object table(const std::vector<boost::json::object>& objects, std::string_view table_version,
                          bool headers);

boost::json::object flunder_list(const std::vector<boost::json::object>& items);

// /openapi/v2 (swagger 2.0), /openapi/v3 (the index) and the group version's OpenAPI 3.0 document.
std::string openapi_v2_document();
std::string openapi_v3_index();
std::string openapi_v3_group_version_document();

}  // namespace kapi::sample_apiserver
