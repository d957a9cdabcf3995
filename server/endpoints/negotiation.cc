#include "server/endpoints/negotiation.h"

#include "server/apierrors/errors.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <string>
#include <vector>

namespace kapi::endpoints {
namespace {

std::string trim_lower(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

struct MediaRange {
  std::string type;  // "application/json"
  std::map<std::string, std::string> parameters;
};

std::vector<MediaRange> parse_accept(std::string_view accept) {
  std::vector<MediaRange> ranges;
  std::size_t start = 0;
  while (start <= accept.size()) {
    auto comma = accept.find(',', start);
    std::string_view item = accept.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    MediaRange range;
    std::size_t semicolon = item.find(';');
    range.type = trim_lower(item.substr(0, semicolon));
    while (semicolon != std::string_view::npos) {
      auto next = item.find(';', semicolon + 1);
      std::string_view parameter = item.substr(semicolon + 1, next == std::string_view::npos ? std::string_view::npos
                                                                                            : next - semicolon - 1);
      auto eq = parameter.find('=');
      if (eq != std::string_view::npos)
        range.parameters[trim_lower(parameter.substr(0, eq))] = trim_lower(parameter.substr(eq + 1));
      semicolon = next;
    }
    if (!range.type.empty()) ranges.push_back(std::move(range));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return ranges;
}

constexpr std::string_view kProtobuf = "application/vnd.kubernetes.protobuf";

bool is_json_type(std::string_view type) {
  return type == "application/json" || type == "application/*" || type == "*/*" || type == "*";
}

}  // namespace

Output negotiate(const http::Request& request, bool objects_have_protobuf) {
  auto accept = request.headers.get("Accept");
  if (!accept || accept->empty()) return {Representation::Object, Encoding::Json};
  // What client-go and kubectl send for JSON decides without parsing: the first range is JSON, with no parameter.
  if (*accept == "application/json" || *accept == "application/json, */*" || *accept == "*/*")
    return {Representation::Object, Encoding::Json};
  auto ranges = parse_accept(*accept);
  if (ranges.empty()) return {Representation::Object, Encoding::Json};
  for (const auto& range : ranges) {
    const bool protobuf = range.type == kProtobuf;
    if (!protobuf && !is_json_type(range.type)) continue;
    const Encoding encoding = protobuf ? Encoding::Protobuf : Encoding::Json;
    auto as = range.parameters.find("as");
    if (as == range.parameters.end()) {
      if (protobuf && !objects_have_protobuf) continue;
      return {Representation::Object, encoding};
    }
    auto group = range.parameters.find("g");
    auto version = range.parameters.find("v");
    if (group == range.parameters.end() || group->second != "meta.k8s.io" || version == range.parameters.end())
      continue;
    if (as->second == "table" && (version->second == "v1" || version->second == "v1beta1") && !protobuf)
      return {Representation::Table, encoding};
    if (as->second == "partialobjectmetadata" || as->second == "partialobjectmetadatalist")
      return {Representation::PartialObjectMetadata, encoding};
  }
  throw apierrors::ApiError(apierrors::not_acceptable(
      "only the following media types are accepted: application/json, application/yaml, "
      "application/vnd.kubernetes.protobuf"));
}

BodyFormat body_format(const http::Request& request, bool patch) {
  auto content_type = request.headers.get("Content-Type");
  std::string type = content_type ? trim_lower(content_type->substr(0, content_type->find(';'))) : "";
  if (patch) {
    if (type == "application/json-patch+json") return BodyFormat::JsonPatch;
    if (type == "application/merge-patch+json") return BodyFormat::MergePatch;
    if (type == "application/strategic-merge-patch+json") return BodyFormat::StrategicMergePatch;
    if (type == "application/apply-patch+yaml") return BodyFormat::ApplyPatch;
    throw apierrors::ApiError(apierrors::unsupported_media_type(
        "application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml, "
        "application/strategic-merge-patch+json"));
  }
  if (type.empty() || type == "application/json") return BodyFormat::Json;
  if (type == "application/yaml") return BodyFormat::Yaml;
  if (type == kProtobuf) return BodyFormat::Protobuf;
  // The serializers kube offers for a request body, in its order.
  throw apierrors::ApiError(apierrors::unsupported_media_type(
      "application/json, application/yaml, application/vnd.kubernetes.protobuf"));
}

}  // namespace kapi::endpoints
