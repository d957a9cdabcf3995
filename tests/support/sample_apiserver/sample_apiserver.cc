#include "tests/support/sample_apiserver/sample_apiserver.h"

#include "server/apierrors/errors.h"
#include "server/http/status_response.h"
#include "tests/support/sample_apiserver/flunders.h"

#include <asio/steady_timer.hpp>
#include <asio/this_coro.hpp>
#include <asio/use_awaitable.hpp>

#include <boost/json.hpp>

#include <charconv>
#include <chrono>
#include <stdexcept>

namespace kapi::sample_apiserver {
namespace {

namespace json = boost::json;
using namespace std::chrono_literals;

const std::string kGroupPath = "/apis/" + std::string(kGroup);
const std::string kVersionPath = kGroupPath + "/" + std::string(kVersion);
constexpr auto kDefaultWatchTimeout = 30s;

// The headers kube's sample-apiserver is told to read (kubeadm's --requestheader-* values).
authentication::RequestHeaderConfig header_config(std::vector<std::string> allowed_names) {
  return {.username_headers = {"X-Remote-User"},
          .uid_headers = {"X-Remote-Uid"},
          .group_headers = {"X-Remote-Group"},
          .extra_header_prefixes = {"X-Remote-Extra-"},
          .allowed_names = std::move(allowed_names)};
}

// One whole response. Handlers build it synchronously and send it in one place, so no co_await expression holds a
// temporary string or Status (g++ 12 mishandles those).
struct Reply {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::string location = {};  // a redirect's target
};

Reply json_reply(std::string body) { return {200, "application/json", std::move(body)}; }
Reply text_reply(std::string body) { return {200, "text/plain; charset=utf-8", std::move(body)}; }
Reply status_reply(const apierrors::Status& status) { return {status.code, "application/json", apierrors::to_json(status)}; }

asio::awaitable<void> send(http::ResponseWriter& response, Reply reply) {
  if (!reply.content_type.empty()) response.headers().set("Content-Type", std::move(reply.content_type));
  if (!reply.location.empty()) response.headers().set("Location", std::move(reply.location));
  co_await response.write(reply.status, std::move(reply.body));
}

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  for (;;) {
    const std::size_t end = text.find(separator, start);
    parts.push_back(text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    if (end == std::string_view::npos) return parts;
    start = end + 1;
  }
}

// The namespace and name a fieldSelector pins (kube's generic field set: metadata.name, metadata.namespace);
// any other field is a 400, as for a resource without that field label.
struct FieldSelector {
  std::string namespace_;
  std::string name;
};

FieldSelector parse_field_selector(std::string_view selector) {
  FieldSelector out;
  if (selector.empty()) return out;
  for (std::string_view term : split(selector, ',')) {
    const std::size_t equals = term.find('=');
    if (equals == std::string_view::npos || term.substr(equals).starts_with("!="))
      throw apierrors::ApiError(apierrors::bad_request("unsupported field selector: \"" + std::string(term) + "\""));
    const std::string_view field = term.substr(0, equals);
    std::string_view value = term.substr(equals + 1);
    if (value.starts_with('=')) value.remove_prefix(1);  // "=="
    if (field == "metadata.name") {
      out.name = value;
    } else if (field == "metadata.namespace") {
      out.namespace_ = value;
    } else {
      throw apierrors::ApiError(
          apierrors::bad_request("\"" + std::string(field) + "\" is not a known field selector: only \"metadata.name\", "
                                 "\"metadata.namespace\""));
    }
  }
  return out;
}

long integer_parameter(const http::Request& request, std::string_view key, long fallback) {
  auto value = request.query.get(key);
  if (!value || value->empty()) return fallback;
  long out = 0;
  auto [end, error] = std::from_chars(value->data(), value->data() + value->size(), out);
  if (error != std::errc() || end != value->data() + value->size() || out < 0)
    throw apierrors::ApiError(
        apierrors::bad_request(std::string(key) + ": Invalid value: \"" + std::string(*value) + "\""));
  return out;
}

json::array to_array(const std::vector<std::string>& values) {
  json::array out;
  for (const auto& value : values) out.emplace_back(value);
  return out;
}

// The discovery, health and OpenAPI documents; std::nullopt for a path that is none of them.
std::optional<Reply> document(const http::Request& request, std::string_view path) {
  const std::string_view accept = request.headers.get("Accept").value_or("");
  if (path == "/readyz" || path == "/livez") return text_reply("ok");
  if (path == "/version") {
    // A Kubernetes version, so kubectl (whose dispatcher picks a client by the server's minor) can talk to it
    // directly; behind the aggregator kapi answers /version itself.
    return json_reply(json::serialize(json::object{{"major", "1"},
                                                   {"minor", "32"},
                                                   {"gitVersion", "v1.32.0-sample"},
                                                   {"gitCommit", ""},
                                                   {"gitTreeState", "clean"},
                                                   {"buildDate", "2026-01-01T00:00:00Z"},
                                                   {"goVersion", ""},
                                                   {"compiler", "gc"},
                                                   {"platform", "linux/amd64"}}));
  }
  if (path == "/apis") {
    if (std::string version = aggregated_discovery_version(accept); !version.empty())
      return Reply{200, aggregated_discovery_content_type(version), aggregated_discovery_document(version)};
    return json_reply(group_list_document());
  }
  if (path == kGroupPath) return json_reply(group_document());
  if (path == kVersionPath) return json_reply(resource_list_document());
  if (path == "/openapi/v2") return json_reply(openapi_v2_document());
  if (path == "/openapi/v3") return json_reply(openapi_v3_index());
  if (path == "/openapi/v3/apis/" + std::string(kGroupVersion)) return json_reply(openapi_v3_group_version_document());
  return std::nullopt;
}

// Where a request under /apis/<group>/<version>/ points: flunders | namespaces/<ns>/flunders[/<name>].
struct ResourcePath {
  std::string namespace_;  // empty: every namespace
  std::string name;        // empty: the collection
  bool get = false;        // one named object
};

std::optional<ResourcePath> parse_resource_path(std::string_view rest) {
  const std::vector<std::string_view> parts = split(rest, '/');
  if (parts.size() == 1 && parts[0] == kResource) return ResourcePath{};
  if ((parts.size() == 3 || parts.size() == 4) && parts[0] == "namespaces" && !parts[1].empty() &&
      parts[2] == kResource) {
    if (parts.size() == 3) return ResourcePath{std::string(parts[1]), "", false};
    if (!parts[3].empty()) return ResourcePath{std::string(parts[1]), std::string(parts[3]), true};
  }
  return std::nullopt;
}

// The namespace and name a list or watch selects: the path's, narrowed by a fieldSelector.
ResourcePath selection(const http::Request& request, ResourcePath where) {
  FieldSelector selector = parse_field_selector(request.query.get("fieldSelector").value_or(""));
  if (!selector.namespace_.empty() && !where.namespace_.empty() && selector.namespace_ != where.namespace_)
    selector.name = "\x01";  // contradicts the path: matches nothing
  else if (!selector.namespace_.empty())
    where.namespace_ = selector.namespace_;
  if (!selector.name.empty()) where.name = selector.name;
  return where;
}

// GET of one flunder or of a list, as the object (list) or as the Table kubectl asks for.
Reply read_flunders(const http::Request& request, const ResourcePath& where) {
  const std::string table = table_version(request.headers.get("Accept").value_or(""));
  if (where.get) {
    std::vector<json::object> found = select(where.namespace_, where.name);
    if (found.empty()) return status_reply(apierrors::not_found(kGroup, kResource, where.name));
    return json_reply(json::serialize(table.empty() ? json::object(found.front()) : sample_apiserver::table(found, table, true)));
  }
  const ResourcePath selected = selection(request, where);
  std::vector<json::object> items = select(selected.namespace_, selected.name);
  return json_reply(json::serialize(table.empty() ? flunder_list(items) : sample_apiserver::table(items, table, true)));
}

// A watch of a store where nothing ever changes: an ADDED event per flunder newer than the resourceVersion asked
// from (all of them for none or "0", as kube sends the initial state), then an open stream until timeoutSeconds.
// kapi's HttpServer does not read while a response streams, so a client that went away is only noticed by the
// write that ends the stream.
asio::awaitable<void> watch(const http::Request& request, http::ResponseWriter& response, ResourcePath where) {
  const long timeout_seconds = integer_parameter(request, "timeoutSeconds", 0);
  const auto timeout = timeout_seconds > 0 ? std::chrono::seconds(timeout_seconds) : kDefaultWatchTimeout;
  const long from = integer_parameter(request, "resourceVersion", 0);
  const ResourcePath selected = selection(request, where);
  const std::string table = table_version(request.headers.get("Accept").value_or(""));

  std::vector<std::string> lines;
  bool table_headers_sent = false;
  for (const auto& flunder : select(selected.namespace_, selected.name)) {
    const std::string_view version = flunder.at("metadata").at("resourceVersion").as_string();
    long object_version = 0;
    std::from_chars(version.data(), version.data() + version.size(), object_version);
    if (object_version <= from) continue;
    json::value object = flunder;
    if (!table.empty()) {
      // One row per event; the column definitions only in the first, as kube's watch encoder does.
      object = sample_apiserver::table({flunder}, table, !table_headers_sent);
      object.as_object()["metadata"] = json::object{{"resourceVersion", version}};
      table_headers_sent = true;
    }
    lines.push_back(json::serialize(json::object{{"type", "ADDED"}, {"object", std::move(object)}}) + "\n");
  }

  response.headers().set("Content-Type", "application/json");
  co_await response.begin_stream(200);
  for (const auto& line : lines) co_await response.write_chunk(line);
  // Nothing else happens: wake once a second until the timeout rather than sleeping through it in one wait.
  asio::steady_timer timer(co_await asio::this_coro::executor);
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (auto now = std::chrono::steady_clock::now(); now < deadline; now = std::chrono::steady_clock::now()) {
    timer.expires_after(std::min<std::chrono::steady_clock::duration>(1s, deadline - now));
    co_await timer.async_wait(asio::use_awaitable);
  }
  co_await response.end_stream();
}

// Everything under /apis/<group>/<version>/; std::nullopt when it is a watch, which streams instead.
Reply resource_reply(const http::Request& request, std::string_view rest, bool redirect) {
  if (redirect) {
    // What a misbehaving (or hostile) extension server may answer: the aggregator must not follow it.
    return Reply{302, "", "", "https://example.invalid/elsewhere"};
  }
  std::optional<ResourcePath> where = parse_resource_path(rest);
  if (!where) return status_reply(apierrors::path_not_found());
  if (request.method != "GET" && request.method != "HEAD") {
    const std::string verb = request.method == "POST" ? "create" : request.method == "DELETE" ? "delete" : "update";
    return status_reply(apierrors::method_not_supported(kGroup, kResource, verb));
  }
  return read_flunders(request, *where);
}

bool is_watch(const http::Request& request, std::string_view rest) {
  std::optional<ResourcePath> where = parse_resource_path(rest);
  auto watch = request.query.get("watch");
  return where && !where->get && request.method == "GET" && (watch == "true" || watch == "1");
}

}  // namespace

SampleApiServer::SampleApiServer(HandlerOptions options) : options_(std::move(options)) {
  if (!options_.requestheader_client_ca_file.empty()) {
    front_proxy_.emplace(authentication::CertificateVerifier::from_file(options_.requestheader_client_ca_file),
                         header_config(options_.requestheader_allowed_names));
  }
  if (!options_.request_log.empty()) {
    request_log_.open(options_.request_log, std::ios::app);
    if (!request_log_) throw std::runtime_error("cannot open --request-log " + options_.request_log.string());
  }
}

asio::awaitable<std::optional<authentication::UserInfo>> SampleApiServer::authenticate(
    http::Request& request) const {
  if (!front_proxy_) {
    // No front-proxy CA: a test that only wants the documents; the headers are taken as they come.
    authentication::Result trusted = authentication::user_from_headers(request.headers, header_config({}));
    co_return trusted.user;
  }
  // kube's x509 request-header authenticator: the certificate must chain to the front-proxy CA and carry an
  // allowed CN, and then X-Remote-User must name someone. An extension API server would go on to delegated
  // authentication (a TokenReview at kapi); this one only ever talks to the aggregator, so anything else is 401.
  auto pending = front_proxy_->authenticate(request);
  authentication::Result result = co_await std::move(pending);
  if (result.outcome != authentication::Result::Outcome::Authenticated) co_return std::nullopt;
  co_return std::move(result.user);
}

void SampleApiServer::log(const http::Request& request, const authentication::UserInfo& user) {
  if (!request_log_.is_open()) return;
  json::object extra;
  for (const auto& [key, values] : user.extra) extra[key] = to_array(values);
  json::object line{{"method", request.method},
                    {"path", request.path},
                    {"query", request.raw_query},
                    {"user", user.name},
                    {"uid", user.uid},
                    {"groups", to_array(user.groups)},
                    {"extra", std::move(extra)},
                    {"clientCN", request.peer_certificate ? request.peer_certificate->common_name : ""},
                    {"protocol", request.http2 ? "HTTP/2.0" : "HTTP/1.1"}};
  // Flushed per line: a test reads the log while the server keeps running.
  request_log_ << json::serialize(line) << std::endl;
}

asio::awaitable<void> SampleApiServer::handle(http::Request& request, http::ResponseWriter& response) {
  Reply reply;
  try {
    std::optional<authentication::UserInfo> user;
    if (request.path == "/healthz") {
      user.emplace();  // health checks need no credential
    } else {
      auto pending = authenticate(request);
      user = co_await std::move(pending);
    }
    log(request, user.value_or(authentication::UserInfo{}));

    std::string_view path = request.path;
    if (path.size() > 1 && path.ends_with('/')) path.remove_suffix(1);
    if (!user) {
      reply = status_reply(apierrors::unauthorized("Unauthorized"));
    } else if (path == "/healthz") {
      reply = text_reply("ok");
    } else if (path.starts_with(kVersionPath + "/")) {
      const std::string_view rest = path.substr(kVersionPath.size() + 1);
      if (!options_.redirect_resources && is_watch(request, rest)) {
        auto pending = watch(request, response, *parse_resource_path(rest));
        co_await std::move(pending);
        co_return;
      }
      reply = resource_reply(request, rest, options_.redirect_resources);
    } else if (std::optional<Reply> found = document(request, path); found && request.method == "GET") {
      reply = std::move(*found);
    } else {
      reply = status_reply(apierrors::path_not_found());
    }
  } catch (const apierrors::ApiError& error) {
    if (response.committed()) throw;
    reply = status_reply(error.status());
  }
  co_await send(response, std::move(reply));
}

}  // namespace kapi::sample_apiserver
