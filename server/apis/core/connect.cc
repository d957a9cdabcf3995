// Follows pkg/registry/core/pod/rest/log.go (LogREST.Get and genericrest.LocationStreamer), subresources.go
// (ExecREST, AttachREST, PortForwardREST, ProxyREST), pkg/registry/core/pod/strategy.go (LogLocation, ExecLocation,
// AttachLocation, PortForwardLocation, ResourceLocation, validateContainer), pkg/registry/core/node/rest/proxy.go,
// pkg/registry/core/service/proxy.go and storage.go (ResourceLocation), and apimachinery's upgradeaware.go for how
// the answer is relayed.
#include "server/apis/core/connect.h"

#include "request/list_options_probe.h"
#include "server/apierrors/errors.h"
#include "server/http/query.h"
#include "server/proxy/relay.h"
#include "server/registry/json_fields.h"
#include "server/registry/object_meta.h"
#include "server/registry/store.h"
#include "server/validation/field_error.h"

#include <asio/ip/address.hpp>

#include <algorithm>
#include <charconv>
#include <map>

namespace kapi::apis::core {

namespace {

using namespace registry::fields;
using registry::ConnectRequest;
using Config = std::shared_ptr<const ConnectConfig>;

apierrors::ApiError unknown_error(std::string message) {  // ErrorToAPIStatus of an error that is no Status
  return apierrors::ApiError(apierrors::Status{500, "", std::move(message), std::nullopt});
}

asio::awaitable<json::object> read_object(ConnectRequest& request) {
  auto reading = request.store.get(request.namespace_, request.name, "");
  registry::ReadObject read = co_await std::move(reading);
  co_return registry::parse_json(read.json).as_object();
}

// url.Values.Encode: sorted by key, each key's values in order.
std::string encode_query(const std::multimap<std::string, std::string>& values) {
  std::string out;
  for (const auto& [key, value] : values) {
    if (!out.empty()) out.push_back('&');
    out.append(http::percent_encode_query_component(key)).append("=").append(http::percent_encode_query_component(value));
  }
  return out;
}

// runtime.Convert_Slice_string_To_bool, how the parameter codec reads a bool: absent, "0" or "false" in any case is
// false, anything else (even an empty value) true.
std::vector<std::string> container_names(const json::object& pod) {
  std::vector<std::string> names;
  const json::object* spec = object_at(pod, "spec");
  for (const char* list : {"initContainers", "containers", "ephemeralContainers"})
    if (const json::array* containers = array_at(spec, list))
      for (const auto& container : *containers)
        if (container.is_object()) names.emplace_back(string_at(container.as_object(), "name"));
  return names;
}

// validateContainer.
std::string validate_container(std::string container, const json::object& pod, const std::string& name) {
  const json::array* containers = array_at(object_at(pod, "spec"), "containers");
  const std::size_t count = containers ? containers->size() : 0;
  if (container.empty()) {
    if (count == 1) return std::string(string_at((*containers)[0].as_object(), "name"));
    if (count == 0)
      throw apierrors::ApiError(apierrors::bad_request("a container name must be specified for pod " + name));
    std::string listed;
    for (const auto& each : container_names(pod)) listed.append(listed.empty() ? "" : " ").append(each);
    throw apierrors::ApiError(apierrors::bad_request("a container name must be specified for pod " + name +
                                                     ", choose one of: [" + listed + "]"));
  }
  auto names = container_names(pod);
  if (std::find(names.begin(), names.end(), container) == names.end())
    throw apierrors::ApiError(apierrors::bad_request("container " + container + " is not valid for pod " + name));
  return container;
}

std::string node_of(const json::object& pod, const std::string& name) {
  std::string node(string_at(object_at(pod, "spec"), "nodeName"));
  if (node.empty()) throw apierrors::ApiError(apierrors::bad_request("pod " + name + " does not have a host assigned"));
  return node;
}

// The client's headers that go on: not hop-by-hop (an upgrade keeps Upgrade), not its credentials, which the
// authentication filter consumed.
http::Headers forwarded_headers(const http::Request& request, bool upgrade) {
  http::Headers out;
  auto named = proxy::connection_tokens(request.headers);
  for (const auto& field : request.headers) {
    const auto& name = field.name;
    const bool keep_for_upgrade = upgrade && http::iequals(name, "Upgrade");
    if (!keep_for_upgrade && (proxy::is_hop_by_hop(name) || proxy::named_in(named, name))) continue;
    if (http::iequals(name, "Content-Length") || http::iequals(name, "Authorization") ||
        http::starts_with_ignoring_case(name, "Impersonate-"))
      continue;
    out.add(name, field.value);
  }
  return out;
}

// UpgradeAwareHandler: the request goes to `target` on `backend`; a 101 is spliced, anything else relayed. A
// backend that cannot be reached is kube's "error dialing backend" for an upgrade, and the proxy's 503
// "error trying to reach service" otherwise.
asio::awaitable<void> relay(ConnectRequest& request, const proxy::Backend& backend, std::string target,
                            std::chrono::milliseconds timeout, bool upgrade_required) {
  auto& exchange = request.exchange;
  const bool upgrade = proxy::is_upgrade_request(exchange.request);
  if (upgrade_required && !upgrade)
    throw apierrors::ApiError(apierrors::bad_request("Upgrade request required"));
  proxy::BackendRequest outgoing{exchange.request.method, std::move(target), forwarded_headers(exchange.request, upgrade),
                                 upgrade ? std::string() : exchange.request.body, upgrade};
  outgoing.headers.set("Host", proxy::join_host_port(backend.host, backend.port));
  StartedRequest started;
  std::string failure;
  try {
    auto starting = start_request(backend, std::move(outgoing), timeout);
    started = co_await std::move(starting);
  } catch (const std::exception& error) {
    failure = error.what();
  }
  if (!failure.empty()) {
    if (upgrade) throw unknown_error("error dialing backend: " + failure);
    throw apierrors::ApiError(apierrors::service_unavailable("error trying to reach service: " + failure));
  }
  const bool head_request = exchange.request.method == "HEAD";
  auto relaying = proxy::relay_response(*exchange.response, *started.connection, std::move(started.head), head_request);
  co_await std::move(relaying);
}

// The query a stream location carries (streamParams).
std::string stream_query(const http::QueryParams& query, bool with_command) {
  std::multimap<std::string, std::string> params;
  for (const char* flag : {"stdin", "stdout", "stderr", "tty"})
    if (request::query_flag(query, flag)) params.emplace(flag, "1");
  if (with_command)
    for (auto command : query.all("command")) params.emplace("command", std::string(command));
  return encode_query(params);
}

asio::awaitable<void> stream(Config config, ConnectRequest request, std::string kind) {
  const auto& query = request.exchange.request.query;
  auto reading = read_object(request);
  json::object pod = co_await std::move(reading);
  if (!request::query_flag(query, "stdin") && !request::query_flag(query, "stdout") && !request::query_flag(query, "stderr"))
    throw apierrors::ApiError(apierrors::bad_request("you must specify at least 1 of stdin, stdout, stderr"));
  std::string container = validate_container(std::string(query.get("container").value_or("")), pod, request.name);
  auto locating = kubelet_backend(*config, node_of(pod, request.name));
  proxy::Backend kubelet = co_await std::move(locating);
  std::string target = "/" + kind + "/" + http::percent_encode_path(request.namespace_ + "/" + request.name + "/" + container);
  if (auto params = stream_query(query, kind == "exec"); !params.empty()) target.append("?").append(params);
  auto relaying = relay(request, kubelet, std::move(target), config->kubelet.timeout, true);
  co_await std::move(relaying);
}

asio::awaitable<void> port_forward(Config config, ConnectRequest request) {
  auto reading = read_object(request);
  json::object pod = co_await std::move(reading);
  auto locating = kubelet_backend(*config, node_of(pod, request.name));
  proxy::Backend kubelet = co_await std::move(locating);
  std::string target = "/portForward/" + http::percent_encode_path(request.namespace_ + "/" + request.name);
  std::vector<std::string> ports;
  for (auto port : request.exchange.request.query.all("ports")) ports.emplace_back(port);
  if (!ports.empty()) {
    std::string joined;
    for (const auto& port : ports) joined.append(joined.empty() ? "" : ",").append(port);
    target.append("?").append(encode_query({{"port", joined}}));
  }
  auto relaying = relay(request, kubelet, std::move(target), config->kubelet.timeout, true);
  co_await std::move(relaying);
}

// A PodLogOptions integer from the query; a value that is no integer is the parameter codec's 400.
std::optional<std::int64_t> query_int(const http::QueryParams& query, std::string_view key) {
  auto value = query.get(key);
  if (!value || value->empty()) return std::nullopt;
  std::int64_t number = 0;
  auto [end, error] = std::from_chars(value->data(), value->data() + value->size(), number);
  if (error != std::errc() || end != value->data() + value->size())
    throw apierrors::ApiError(apierrors::bad_request("strconv.ParseInt: parsing \"" + std::string(*value) +
                                                     "\": invalid syntax"));
  return number;
}

// ValidatePodLogOptions, before the pod is read.
void validate_log_options(const http::QueryParams& query, const std::string& name) {
  validation::ErrorList errors;
  if (auto tail = query_int(query, "tailLines"); tail && *tail < 0)
    errors.push_back(validation::invalid_value(validation::Path("tailLines"), std::to_string(*tail),
                                               "must be greater than or equal to 0"));
  if (auto limit = query_int(query, "limitBytes"); limit && *limit < 1)
    errors.push_back(validation::invalid_value(validation::Path("limitBytes"), std::to_string(*limit),
                                               "must be greater than 0"));
  auto since_seconds = query_int(query, "sinceSeconds");
  auto since_time = query.get("sinceTime");
  if (since_seconds && since_time && !since_time->empty())
    errors.push_back(validation::forbidden(validation::Path(""),
                                           "at most one of `sinceTime` or `sinceSeconds` may be specified"));
  else if (since_seconds && *since_seconds < 1)
    errors.push_back(validation::invalid_value(validation::Path("sinceSeconds"), std::to_string(*since_seconds),
                                               "must be greater than 0"));
  if (!errors.empty()) throw apierrors::ApiError(apierrors::invalid("", "PodLogOptions", name, errors));
}

// LogREST.Get: the kubelet's containerLogs streamed as text/plain, a pod on no node an empty log.
asio::awaitable<void> logs(Config config, ConnectRequest request) {
  const auto& query = request.exchange.request.query;
  auto& response = *request.exchange.response;
  validate_log_options(query, request.name);
  auto reading = read_object(request);
  json::object pod = co_await std::move(reading);
  std::string container = validate_container(std::string(query.get("container").value_or("")), pod, request.name);
  const std::string node(string_at(object_at(pod, "spec"), "nodeName"));
  response.headers().set("Content-Type", "text/plain");
  if (node.empty()) {
    std::string empty_log;
    co_await response.write(200, std::move(empty_log));
    co_return;
  }
  auto locating = kubelet_backend(*config, node, request::query_flag(query, "insecureSkipTLSVerifyBackend"));
  proxy::Backend kubelet = co_await std::move(locating);
  std::multimap<std::string, std::string> params;
  for (const char* flag : {"follow", "previous", "timestamps"})
    if (request::query_flag(query, flag)) params.emplace(flag, "true");
  for (const char* number : {"sinceSeconds", "sinceTime", "tailLines", "limitBytes"})
    if (auto value = query.get(number); value && !value->empty()) params.emplace(number, std::string(*value));
  std::string path = "/containerLogs/" + http::percent_encode_path(request.namespace_ + "/" + request.name + "/" + container);
  std::string target = path;
  if (!params.empty()) target.append("?").append(encode_query(params));
  const std::string url = "https://" + proxy::join_host_port(kubelet.host, kubelet.port) + target;
  StartedRequest started;
  std::string failure;
  try {
    auto starting = start_request(kubelet, proxy::BackendRequest{"GET", target, {}, {}, false}, config->kubelet.timeout);
    started = co_await std::move(starting);
  } catch (const std::exception& error) {
    failure = error.what();
  }
  if (!failure.empty()) throw unknown_error("Get \"" + url + "\": " + failure);  // client.Do's url.Error
  if (started.head.status < 200 || started.head.status > 299) {
    // GenericHttpResponseChecker: the kubelet's status and its words.
    std::string body;
    for (;;) {
      std::optional<std::string> piece = co_await started.connection->read_body();
      if (!piece || body.size() > 4096) break;
      body.append(*piece);
    }
    while (!body.empty() && (body.back() == '\n' || body.back() == ' ')) body.pop_back();
    throw apierrors::ApiError(apierrors::Status{started.head.status, "", body, std::nullopt});
  }
  co_await response.begin_stream(200);
  for (;;) {
    std::optional<std::string> piece = co_await started.connection->read_body();
    if (!piece) break;
    co_await response.write_chunk(*piece);
  }
  co_await response.end_stream();
}

// utilnet.SplitSchemeNamePort: "name", "name:port" or "scheme:name:port" (scheme http or https).
struct SchemeNamePort {
  std::string scheme, name, port;
};
SchemeNamePort split_scheme_name_port(const std::string& id, std::string_view what) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (;;) {
    auto colon = id.find(':', start);
    parts.push_back(id.substr(start, colon == std::string::npos ? std::string::npos : colon - start));
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  SchemeNamePort out;
  if (parts.size() == 1) {
    out.name = parts[0];
  } else if (parts.size() == 2) {
    out.name = parts[0];
    out.port = parts[1];
  } else if (parts.size() == 3) {
    out.scheme = parts[0];
    out.name = parts[1];
    out.port = parts[2];
  }
  const bool valid = parts.size() <= 3 && !out.name.empty() &&
                     (out.scheme.empty() || out.scheme == "http" || out.scheme == "https");
  if (!valid) throw apierrors::ApiError(apierrors::bad_request("invalid " + std::string(what) + " request \"" + id + "\""));
  return out;
}

bool is_global_unicast(const std::string& ip) {
  asio::error_code error;
  auto address = asio::ip::make_address(ip, error);
  if (error || address.is_unspecified() || address.is_loopback() || address.is_multicast()) return false;
  if (address.is_v4()) {
    auto bytes = address.to_v4().to_bytes();
    if (bytes[0] == 169 && bytes[1] == 254) return false;  // link-local
    return address.to_v4() != asio::ip::address_v4::broadcast();
  }
  return !address.to_v6().is_link_local();
}

proxy::Backend plain_or_tls(const ConnectConfig& config, std::string host, std::uint16_t port, const std::string& scheme) {
  proxy::Backend backend;
  backend.host = std::move(host);
  backend.port = port;
  backend.tls = config.proxy_tls;
  backend.use_tls = scheme == "https";
  backend.verify_server_name = false;
  return backend;
}

std::uint16_t parse_port(const std::string& text) {
  int port = 0;
  for (char c : text) {
    if (c < '0' || c > '9' || port > 65535) return 0;
    port = port * 10 + (c - '0');
  }
  return port > 0 && port < 65536 ? static_cast<std::uint16_t>(port) : 0;
}

// The proxied path: the location's path joined with the request's, its trailing slash kept
// (net.JoinPreservingTrailingSlash), then the client's query as it came.
std::string proxy_target(const ConnectRequest& request) {
  std::string target = request.path.empty() ? "/" : http::percent_encode_path(request.path);
  const auto& raw_path = request.exchange.request.path;
  if (!raw_path.empty() && raw_path.back() == '/' && target.back() != '/') target.push_back('/');
  if (!request.exchange.request.raw_query.empty()) target.append("?").append(request.exchange.request.raw_query);
  return target;
}

asio::awaitable<void> pod_proxy(Config config, ConnectRequest request) {
  auto id = split_scheme_name_port(request.name, "pod");
  request.name = id.name;
  auto reading = read_object(request);
  json::object pod = co_await std::move(reading);
  if (id.port.empty()) {
    if (const json::array* containers = array_at(object_at(pod, "spec"), "containers"))
      for (const auto& container : *containers) {
        const json::array* ports = container.is_object() ? array_at(container.as_object(), "ports") : nullptr;
        if (ports && !ports->empty() && (*ports)[0].is_object()) {
          id.port = std::to_string(int_at((*ports)[0].as_object(), "containerPort").value_or(0));
          break;
        }
      }
  }
  std::string ip;
  if (const json::array* ips = array_at(object_at(pod, "status"), "podIPs"); ips && !ips->empty() && (*ips)[0].is_object())
    ip = std::string(string_at((*ips)[0].as_object(), "ip"));
  if (ip.empty()) ip = std::string(string_at(object_at(pod, "status"), "podIP"));
  if (!is_global_unicast(ip)) throw apierrors::ApiError(apierrors::bad_request("address not allowed"));
  const std::uint16_t port = id.port.empty() ? 80 : parse_port(id.port);
  auto backend = plain_or_tls(*config, ip, port, id.scheme.empty() ? "http" : id.scheme);
  auto relaying = relay(request, backend, proxy_target(request), config->kubelet.timeout, false);
  co_await std::move(relaying);
}

asio::awaitable<void> node_proxy_connect(Config config, ConnectRequest request) {
  auto id = split_scheme_name_port(request.name, "node");
  auto locating = kubelet_backend(*config, id.name);
  proxy::Backend kubelet = co_await std::move(locating);
  // Another port than the kubelet's is reached over the proxy transport, by the scheme asked for.
  if (!id.port.empty() && parse_port(id.port) != kubelet.port)
    kubelet = plain_or_tls(*config, kubelet.host, parse_port(id.port), id.scheme.empty() ? "http" : id.scheme);
  auto relaying = relay(request, kubelet, proxy_target(request), config->kubelet.timeout, false);
  co_await std::move(relaying);
}

// isValidAddress: an endpoint address is used only when it targets a pod of the namespace that has that IP.
asio::awaitable<bool> targets_its_pod(const ConnectConfig& config, const std::string& namespace_,
                                      const json::object& address) {
  const json::object* target = object_at(address, "targetRef");
  if (!target || string_at(*target, "namespace") != namespace_ || string_at(*target, "name").empty()) co_return false;
  auto reading = config.objects("pods", namespace_, std::string(string_at(*target, "name")));
  std::optional<json::object> pod = co_await std::move(reading);
  if (!pod) co_return false;
  const std::string_view ip = string_at(address, "ip");
  if (const json::array* ips = array_at(object_at(*pod, "status"), "podIPs"))
    for (const auto& pod_ip : *ips)
      if (pod_ip.is_object() && string_at(pod_ip.as_object(), "ip") == ip) co_return true;
  co_return false;
}

// ServiceREST.ResourceLocation: a port number is first turned into the service port's name; then an address of
// the service's Endpoints that serves the port of that name (and targets its pod) is the location.
asio::awaitable<void> service_proxy_connect(Config config, ConnectRequest request) {
  const std::string id = request.name;
  auto parsed = split_scheme_name_port(id, "service");
  request.name = parsed.name;
  std::string port_name = parsed.port;
  if (!parsed.port.empty() && parsed.port.find_first_not_of("0123456789") == std::string::npos) {
    auto reading = read_object(request);
    json::object service = co_await std::move(reading);
    bool found = false;
    if (const json::array* ports = array_at(object_at(service, "spec"), "ports"))
      for (const auto& port : *ports)
        if (port.is_object() && std::to_string(int_at(port.as_object(), "port").value_or(0)) == parsed.port) {
          port_name = std::string(string_at(port.as_object(), "name"));
          found = true;
          break;
        }
    if (!found)
      throw apierrors::ApiError(apierrors::service_unavailable("no service port " + parsed.port +
                                                               " found for service \"" + parsed.name + "\""));
  }
  if (!config->objects) throw apierrors::ApiError(apierrors::service_unavailable("service proxying is not configured"));
  auto reading = config->objects("endpoints", request.namespace_, parsed.name);
  std::optional<json::object> endpoints = co_await std::move(reading);
  if (!endpoints) throw apierrors::ApiError(apierrors::not_found("", "endpoints", parsed.name));
  const json::array* subsets = array_at(*endpoints, "subsets");
  if (!subsets || subsets->empty())
    throw apierrors::ApiError(
        apierrors::service_unavailable("no endpoints available for service \"" + parsed.name + "\""));
  for (const auto& subset : *subsets) {
    if (!subset.is_object()) continue;
    const json::array* addresses = array_at(subset.as_object(), "addresses");
    const json::array* ports = array_at(subset.as_object(), "ports");
    if (!addresses || !ports) continue;
    for (const auto& port : *ports) {
      if (!port.is_object() || string_at(port.as_object(), "name") != port_name) continue;
      for (const auto& address : *addresses) {
        if (!address.is_object()) continue;
        auto checking = targets_its_pod(*config, request.namespace_, address.as_object());
        const bool usable = co_await std::move(checking);
        if (!usable) continue;
        const std::string ip(string_at(address.as_object(), "ip"));
        const auto number = static_cast<std::uint16_t>(int_at(port.as_object(), "port").value_or(0));
        auto backend = plain_or_tls(*config, ip, number, parsed.scheme.empty() ? "http" : parsed.scheme);
        auto relaying = relay(request, backend, proxy_target(request), config->kubelet.timeout, false);
        co_await std::move(relaying);
        co_return;
      }
    }
  }
  throw apierrors::ApiError(apierrors::service_unavailable("no endpoints available for service \"" + id + "\""));
}

// The connect options (core/v1 PodExecOptions, ...) as the parameter codec decodes them from the query, in Go's
// field order and omitempty rules: the object a CONNECT is admitted with.
json::object typed_options(std::string_view kind) { return {{"kind", kind}, {"apiVersion", "v1"}}; }

json::object stream_options(const http::QueryParams& query, std::string_view kind, bool with_command) {
  json::object options = typed_options(kind);
  for (const char* flag : {"stdin", "stdout", "stderr", "tty"})
    if (request::query_flag(query, flag)) options[flag] = true;
  if (auto container = query.get("container"); container && !container->empty()) options["container"] = *container;
  if (with_command) {  // `json:"command"`, without omitempty
    json::array command;
    for (auto argument : query.all("command")) command.emplace_back(argument);
    options["command"] = command.empty() ? json::value(nullptr) : json::value(std::move(command));
  }
  return options;
}

// metav1.Convert_Slice_string_To_Slice_int32: every value, each a comma-separated list of 16-bit ports.
json::object port_forward_options(const http::QueryParams& query) {
  json::object options = typed_options("PodPortForwardOptions");
  json::array ports;
  for (auto value : query.all("ports")) {
    for (std::size_t start = 0;;) {
      const std::size_t comma = std::min(value.find(',', start), value.size());
      const std::string_view port = value.substr(start, comma - start);
      std::uint64_t number = 0;
      auto [end, error] = std::from_chars(port.data(), port.data() + port.size(), number);
      const bool whole = error == std::errc() && end == port.data() + port.size() && !port.empty();
      if (!whole || number > 65535)
        throw apierrors::ApiError(apierrors::bad_request(
            "cannot convert to []int32: strconv.ParseUint: parsing \"" + std::string(port) + "\": " +
            (whole || error == std::errc::result_out_of_range ? "value out of range" : "invalid syntax")));
      ports.emplace_back(static_cast<std::int64_t>(number));
      if (comma == value.size()) break;
      start = comma + 1;
    }
  }
  if (!ports.empty()) options["ports"] = std::move(ports);
  return options;
}

// A proxy's options: getRequestOptions sets `path` from the subpath, whatever the query says.
std::function<json::object(const http::QueryParams&, const std::string&)> proxy_options(std::string kind) {
  return [kind = std::move(kind)](const http::QueryParams&, const std::string& subpath) {
    json::object options = typed_options(kind);
    if (!subpath.empty()) options["path"] = subpath;
    return options;
  };
}

// A resource built without a configuration (unit tests) still lists its subresources; they answer 503.
Config or_unconfigured(Config config) {
  return config ? std::move(config) : std::make_shared<const ConnectConfig>();
}

const std::vector<std::string> kProxyVerbs{"create", "delete", "get", "patch", "update"};
const std::vector<std::string> kStreamVerbs{"create", "get"};

}  // namespace

std::vector<registry::ConnectSubresource> pod_connect_subresources(Config config) {
  config = or_unconfigured(std::move(config));
  return {
      {"attach", "PodAttachOptions", kStreamVerbs,
       [config](ConnectRequest request) { return stream(config, std::move(request), "attach"); },
       [](const http::QueryParams& query, const std::string&) {
         return stream_options(query, "PodAttachOptions", false);
       }},
      {"exec", "PodExecOptions", kStreamVerbs,
       [config](ConnectRequest request) { return stream(config, std::move(request), "exec"); },
       [](const http::QueryParams& query, const std::string&) { return stream_options(query, "PodExecOptions", true); }},
      {"log", "Pod", {"get"}, [config](ConnectRequest request) { return logs(config, std::move(request)); }, {}},
      {"portforward", "PodPortForwardOptions", kStreamVerbs,
       [config](ConnectRequest request) { return port_forward(config, std::move(request)); },
       [](const http::QueryParams& query, const std::string&) { return port_forward_options(query); }},
      {"proxy", "PodProxyOptions", kProxyVerbs,
       [config](ConnectRequest request) { return pod_proxy(config, std::move(request)); },
       proxy_options("PodProxyOptions")},
  };
}

registry::ConnectSubresource node_proxy(Config config) {
  config = or_unconfigured(std::move(config));
  return {"proxy", "NodeProxyOptions", kProxyVerbs,
          [config](ConnectRequest request) { return node_proxy_connect(config, std::move(request)); },
          proxy_options("NodeProxyOptions")};
}

registry::ConnectSubresource service_proxy(Config config) {
  config = or_unconfigured(std::move(config));
  return {"proxy", "ServiceProxyOptions", kProxyVerbs,
          [config](ConnectRequest request) { return service_proxy_connect(config, std::move(request)); },
          proxy_options("ServiceProxyOptions")};
}

}  // namespace kapi::apis::core
