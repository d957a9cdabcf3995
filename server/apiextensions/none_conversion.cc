#include "server/apiextensions/none_conversion.h"

#include <boost/json.hpp>

namespace kapi::apiextensions {
namespace {

// Where the top-level apiVersion's string value starts and ends, for objects that open with it or with kind
// (how kapi and kube-apiserver both write objects); nullopt otherwise.
std::optional<std::pair<std::size_t, std::size_t>> api_version_span(std::string_view object) {
  constexpr std::string_view kApiVersion = "\"apiVersion\":\"";
  std::size_t at = 1;
  if (object.substr(0, 1) != "{") return std::nullopt;
  if (object.substr(1).starts_with("\"kind\":\"")) {
    auto end_of_kind = object.find('"', 9);
    if (end_of_kind == std::string_view::npos || object.substr(end_of_kind + 1, 1) != ",") return std::nullopt;
    at = end_of_kind + 2;
  }
  if (!object.substr(at).starts_with(kApiVersion)) return std::nullopt;
  const std::size_t begin = at + kApiVersion.size();
  const std::size_t end = object.find('"', begin);
  if (end == std::string_view::npos) return std::nullopt;
  return std::make_pair(begin, end);
}

}  // namespace

std::string with_api_version(std::string_view object, std::string_view api_version) {
  if (auto span = api_version_span(object)) {
    if (object.substr(span->first, span->second - span->first) == api_version) return std::string(object);
    std::string out;
    out.reserve(object.size() + api_version.size());
    out.append(object.substr(0, span->first)).append(api_version).append(object.substr(span->second));
    return out;
  }
  boost::system::error_code error;
  boost::json::value value = boost::json::parse(object, error);
  if (error || !value.is_object()) return std::string(object);
  value.as_object()["apiVersion"] = api_version;
  return boost::json::serialize(value);
}

}  // namespace kapi::apiextensions
