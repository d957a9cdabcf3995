#include "request/request_info_resolver.h"

#include <algorithm>
#include <array>
#include <span>

#include "request/list_options_probe.h"
#include "base/ascii.h"

namespace kapi::request {
namespace {

// Path segments that are verbs rather than resources ("/api/v1/watch/pods"), a legacy form.
constexpr std::array<std::string_view, 2> kSpecialVerbs{"proxy", "watch"};
// Special verbs after which the third part is path, not a subresource.
constexpr std::string_view kSpecialVerbWithoutSubresources = "proxy";
// What may follow /namespaces/{name} and is a subresource of the namespace, not a namespaced resource.
constexpr std::array<std::string_view, 2> kNamespaceSubresources{"status", "finalize"};
// Verbs whose requests honour fieldSelector and labelSelector.
constexpr std::array<std::string_view, 3> kVerbsWithSelectors{"list", "watch", "deletecollection"};

template <std::size_t N>
bool contains(const std::array<std::string_view, N>& set, std::string_view value) {
  return std::find(set.begin(), set.end(), value) != set.end();
}

// Go's splitPath: trim every leading and trailing '/', then split on each '/' (keeping empty segments).
std::vector<std::string> split_path(std::string_view path) {
  const std::size_t first = path.find_first_not_of('/');
  if (first == std::string_view::npos) return {};
  path = path.substr(first, path.find_last_not_of('/') - first + 1);
  std::vector<std::string> segments;
  segments.reserve(static_cast<std::size_t>(std::count(path.begin(), path.end(), '/')) + 1);  // one allocation
  for (std::size_t start = 0;;) {
    const std::size_t slash = path.find('/', start);
    segments.emplace_back(path.substr(start, slash == std::string_view::npos ? std::string_view::npos : slash - start));
    if (slash == std::string_view::npos) return segments;
    start = slash + 1;
  }
}

std::string verb_for_method(std::string_view method) {
  if (method == "POST") return "create";
  if (method == "GET" || method == "HEAD") return "get";
  if (method == "PUT") return "update";
  if (method == "PATCH") return "patch";
  if (method == "DELETE") return "delete";
  return "";
}

}  // namespace

std::string_view RequestInfo::scope() const {
  if (!name.empty() || verb == "create") return "resource";
  if (!namespace_.empty()) return "namespace";
  if (is_resource_request) return "cluster";
  return "";
}

RequestInfoResult RequestInfoResolver::resolve(std::string_view method, std::string_view path,
                                               const http::QueryParams& query) const {
  RequestInfoResult result;
  RequestInfo& info = result.info;
  info.path = std::string(path);
  info.verb = ascii_lowercase(method);

  // Until proven otherwise this is a non-resource request.
  const std::vector<std::string> segments = split_path(path);
  if (segments.size() < 3 || !options_.api_prefixes.contains(segments[0])) return result;
  std::span<const std::string> current(segments);
  info.api_prefix = current[0];
  current = current.subspan(1);

  if (!options_.groupless_api_prefixes.contains(info.api_prefix)) {
    // A group is needed as well as a version and a resource.
    if (current.size() < 3) return result;
    info.api_group = current[0];
    current = current.subspan(1);
  }

  info.is_resource_request = true;
  info.api_version = current[0];
  current = current.subspan(1);

  bool verb_via_path_prefix = false;
  if (contains(kSpecialVerbs, current[0])) {
    if (current.size() < 2) {
      std::string url = http::percent_encode_path(path);
      if (!query.raw().empty()) url.append("?").append(query.raw());
      result.error = "unable to determine kind and namespace from url, " + url;
      return result;
    }
    info.verb = current[0];
    current = current.subspan(1);
    verb_via_path_prefix = true;
  } else {
    info.verb = verb_for_method(method);
  }

  // /namespaces/{namespace}/{resource}/... : make the parts relative to the namespaced resource.
  if (current[0] == "namespaces") {
    if (current.size() > 1) {
      info.namespace_ = current[1];
      if (current.size() > 2 && !contains(kNamespaceSubresources, current[2])) current = current.subspan(2);
    }
  }

  info.parts.assign(current.begin(), current.end());
  if (info.parts.size() >= 3 && info.verb != kSpecialVerbWithoutSubresources) info.subresource = info.parts[2];
  if (info.parts.size() >= 2) info.name = info.parts[1];
  info.resource = info.parts[0];

  // A GET without a name is a list or a watch; a list may still name its object through a field selector.
  if (info.name.empty() && info.verb == "get") {
    ListOptionsProbe probe = probe_list_options(query);
    info.verb = probe.watch ? "watch" : "list";
    if (probe.field_selector_name) info.name = std::move(*probe.field_selector_name);
  }
  if (info.name.empty() && info.verb == "delete") info.verb = "deletecollection";

  // The legacy /watch/ form is not given selectors: its single-object endpoint ignores them.
  if (options_.authorize_with_selectors && !verb_via_path_prefix && contains(kVerbsWithSelectors, info.verb)) {
    info.field_selector = std::string(query.get("fieldSelector").value_or(""));
    info.label_selector = std::string(query.get("labelSelector").value_or(""));
  }
  return result;
}

std::optional<RequestInfoResult> RequestInfoResolver::resolve_target(std::string_view method,
                                                                     std::string_view target) const {
  const std::size_t question = target.find('?');
  const auto path = http::percent_decode(target.substr(0, question), /*plus_as_space=*/false);
  if (!path) return std::nullopt;
  const auto query =
      http::QueryParams::parse(question == std::string_view::npos ? std::string_view{} : target.substr(question + 1));
  return resolve(method, *path, query);
}

}  // namespace kapi::request
