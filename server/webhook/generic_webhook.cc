// GenericWebhook (k8s.io/apiserver/pkg/util/webhook/webhook.go), its kubeconfig (client-go's clientcmd, as
// LoadKubeconfig reads it) and the REST client's handling of the answer (client-go/rest/request.go:
// transformResponse, newUnstructuredResponseError).
#include "server/webhook/generic_webhook.h"

#include "base/base64.h"
#include "base/sleep.h"
#include "server/registry/json_fields.h"
#include "server/registry/object_meta.h"
#include "server/schema/yaml_to_json.h"

#include <asio/cancellation_state.hpp>
#include <asio/this_coro.hpp>
#include <boost/json.hpp>

#include <charconv>
#include <cctype>
#include <exception>
#include <fstream>
#include <random>
#include <sstream>

namespace kapi::webhook {
namespace {

namespace json = boost::json;
namespace fields = registry::fields;

constexpr std::size_t kMaxResponseBytes = 64 << 20;

std::string read_file(const std::filesystem::path& path, std::string_view what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw KubeconfigError("unable to read " + std::string(what) + " " + path.string());
  std::ostringstream content;
  content << in.rdbuf();
  return content.str();
}

std::filesystem::path resolved(const std::string& file, const std::filesystem::path& folder) {
  std::filesystem::path path(file);
  return path.is_absolute() || folder.empty() ? path : folder / path;
}

// The named entry of a kubeconfig list (clusters, users, contexts): its inner object (cluster, user, context).
const json::object* named(const json::object& config, std::string_view list, std::string_view inner,
                          std::string_view name) {
  for (const json::value& entry : fields::array_or_empty(config, list)) {
    if (!entry.is_object() || fields::string_at(entry.as_object(), "name") != name) continue;
    return fields::object_at(entry.as_object(), inner);
  }
  return nullptr;
}

// "-data" (base64 in YAML, as Go's []byte) wins over the file, as in clientcmd.
std::string pem_of(const json::object& object, std::string_view data_key, std::string_view file_key,
                   const std::filesystem::path& folder) {
  const std::string_view data = fields::string_at(object, data_key);
  if (!data.empty()) {
    std::optional<std::string> decoded = base::base64_decode(data);
    if (!decoded) throw KubeconfigError("illegal base64 data in " + std::string(data_key));
    return std::move(*decoded);
  }
  const std::string file(fields::string_at(object, file_key));
  return file.empty() ? std::string() : read_file(resolved(file, folder), file_key);
}

std::string trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return std::string(text);
}

bool is_connection_reset(std::string_view message) { return message.find("connection reset by peer") != std::string_view::npos; }

// DefaultShouldRetry for an answer: IsInternalError, IsTimeout, IsTooManyRequests, or SuggestsClientDelay (a
// Retry-After the REST client turned into details.retryAfterSeconds, or a Status saying so).
bool retriable_status(int code, bool retry_after, const json::object* status) {
  if (code == 500 || code == 504 || code == 429) return true;
  if (retry_after) return true;
  if (status) {
    const json::object& details = fields::object_or_empty(*status, "details");
    if (fields::string_at(*status, "reason") == "ServerTimeout") return true;
    if (const json::value* seconds = details.if_contains("retryAfterSeconds"); seconds && seconds->is_int64() &&
        seconds->as_int64() > 0)
      return true;
  }
  return false;
}

}  // namespace

WebhookTarget parse_kubeconfig(std::string_view text, const std::filesystem::path& folder) {
  json::value document;
  try {
    document = schema::yaml_to_json(text).value;
  } catch (const schema::YamlError& error) {
    throw KubeconfigError(error.what());
  }
  if (!document.is_object()) throw KubeconfigError("invalid configuration: no configuration has been provided");
  const json::object& config = document.as_object();
  std::string cluster_name;
  std::string user_name;
  const std::string context_name(fields::string_at(config, "current-context"));
  if (!context_name.empty()) {
    const json::object* context = named(config, "contexts", "context", context_name);
    if (!context) throw KubeconfigError("invalid configuration: context was not found for specified context: " + context_name);
    cluster_name = fields::string_at(*context, "cluster");
    user_name = fields::string_at(*context, "user");
  } else {
    // No current context: as clientcmd merges an empty one, only a file with one cluster (and at most one user)
    // says where to go.
    const json::array& clusters = fields::array_or_empty(config, "clusters");
    const json::array& users = fields::array_or_empty(config, "users");
    if (clusters.size() != 1 || users.size() > 1)
      throw KubeconfigError("invalid configuration: no configuration has been provided");
    if (clusters[0].is_object()) cluster_name = fields::string_at(clusters[0].as_object(), "name");
    if (!users.empty() && users[0].is_object()) user_name = fields::string_at(users[0].as_object(), "name");
  }
  const json::object* cluster = named(config, "clusters", "cluster", cluster_name);
  if (!cluster) throw KubeconfigError("invalid configuration: cluster \"" + cluster_name + "\" not found");
  WebhookTarget target;
  target.server = fields::string_at(*cluster, "server");
  if (target.server.empty()) throw KubeconfigError("invalid configuration: no server found for cluster \"" + cluster_name + "\"");
  target.insecure_skip_tls_verify = fields::bool_at(*cluster, "insecure-skip-tls-verify");
  target.tls_server_name = fields::string_at(*cluster, "tls-server-name");
  target.ca_pem = pem_of(*cluster, "certificate-authority-data", "certificate-authority", folder);
  if (target.insecure_skip_tls_verify && !target.ca_pem.empty())
    throw KubeconfigError("invalid configuration: specifying a root certificates file with the insecure flag is not allowed");
  if (!user_name.empty()) {
    const json::object* user = named(config, "users", "user", user_name);
    if (!user) throw KubeconfigError("invalid configuration: user \"" + user_name + "\" not found");
    target.client_cert_pem = pem_of(*user, "client-certificate-data", "client-certificate", folder);
    target.client_key_pem = pem_of(*user, "client-key-data", "client-key", folder);
    if (target.client_cert_pem.empty() != target.client_key_pem.empty())
      throw KubeconfigError("invalid configuration: client-cert-data and client-key-data must be specified for " +
                            user_name + " to use the clientCert authentication method");
    target.bearer_token = fields::string_at(*user, "token");
    const std::string token_file(fields::string_at(*user, "tokenFile"));
    if (target.bearer_token.empty() && !token_file.empty())
      target.bearer_token = trim(read_file(resolved(token_file, folder), "tokenFile"));
  }
  return target;
}

WebhookTarget load_kubeconfig(const std::filesystem::path& path) {
  const std::string text = read_file(path, "kubeconfig");
  return parse_kubeconfig(text, path.parent_path());
}

ParsedUrl parse_url(std::string_view url) {
  ParsedUrl parsed;
  std::string_view rest = url;
  if (rest.starts_with("https://")) {
    rest.remove_prefix(8);
  } else if (rest.starts_with("http://")) {
    rest.remove_prefix(7);
    parsed.tls = false;
    parsed.port = 80;
  } else {
    throw std::invalid_argument("host must be a URL or a host:port pair: \"" + std::string(url) + "\"");
  }
  const std::size_t slash = rest.find_first_of("/?");
  const std::string_view authority = rest.substr(0, slash);
  if (authority.empty()) throw std::invalid_argument("host must be a URL or a host:port pair: \"" + std::string(url) + "\"");
  parsed.path = slash == std::string_view::npos ? "/" : std::string(rest.substr(slash));
  if (parsed.path.starts_with('?')) parsed.path.insert(0, "/");
  parsed.host_header = std::string(authority);
  std::string_view host = authority;
  const std::size_t bracket = authority.rfind(']');
  const std::size_t colon = authority.rfind(':');
  if (colon != std::string_view::npos && (bracket == std::string_view::npos || colon > bracket)) {
    host = authority.substr(0, colon);
    const std::string_view digits = authority.substr(colon + 1);
    std::from_chars(digits.data(), digits.data() + digits.size(), parsed.port);
  }
  if (host.starts_with('[') && host.ends_with(']')) host = host.substr(1, host.size() - 2);
  parsed.host = std::string(host);
  return parsed;
}

std::string unexpected_response_message(int code, std::string_view body, bool text) {
  switch (code) {
    case 400: return "the server rejected our request for an unknown reason";
    case 401: return "the server has asked for the client to provide credentials";
    case 403: return "the server does not allow access to the requested resource";
    case 404: return "the server could not find the requested resource";
    case 405: return "the server does not allow this method on the requested resource";
    case 409: return "the server reported a conflict";
    case 422: return "the server rejected our request due to an error in our request";
    case 429: return "the server has received too many requests and has asked us to try again later";
    case 503: return "the server is currently unable to handle the request";
    case 504: return "the server was unable to return a response in the time allotted, but may still be processing the request";
    default: break;
  }
  if (code >= 500) {
    std::string message = text ? trim(body.substr(0, 1024)) : "unknown";
    std::string quoted = json::serialize(json::value(message));  // %q of a plain message
    return "an error on the server (" + quoted + ") has prevented the request from succeeding";
  }
  return "the server responded with the status code " + std::to_string(code) +
         " but did not return more information";
}

bool is_json_media_type(std::string_view content_type) {
  const std::string_view media = content_type.substr(0, content_type.find(';'));
  return media.empty() || trim(media) == "application/json" || trim(media) == "application/yaml";
}

GenericWebhook::GenericWebhook(WebhookTarget target, RetryBackoff backoff, std::chrono::milliseconds request_timeout)
    : url_(target.server), backoff_(backoff), request_timeout_(request_timeout),
      pool_(std::make_unique<proxy::ConnectionPool>()) {
  ParsedUrl parsed;
  try {
    parsed = parse_url(target.server);
  } catch (const std::invalid_argument& error) {
    throw KubeconfigError(error.what());
  }
  backend_.host = parsed.host;
  backend_.port = parsed.port;
  backend_.use_tls = parsed.tls;
  backend_.server_name = target.tls_server_name.empty() ? parsed.host : target.tls_server_name;
  backend_.verify_server_name = !target.insecure_skip_tls_verify;
  host_header_ = parsed.host_header;
  path_ = parsed.path;
  try {
    backend_.tls = proxy::make_backend_tls(target.ca_pem, target.insecure_skip_tls_verify, {}, {});
    if (!target.client_cert_pem.empty()) {
      backend_.tls->use_certificate_chain(asio::buffer(target.client_cert_pem));
      backend_.tls->use_private_key(asio::buffer(target.client_key_pem), asio::ssl::context::pem);
    }
  } catch (const std::exception& error) {
    throw KubeconfigError(std::string("unable to load TLS configuration: ") + error.what());
  }
  if (!target.bearer_token.empty()) authorization_ = "Bearer " + target.bearer_token;
}

GenericWebhook::~GenericWebhook() = default;

asio::awaitable<std::string> GenericWebhook::post_once(const std::string& body, Clock::time_point deadline) const {
  const std::string prefix = "Post \"" + url_ + "\": ";
  std::string failure;
  proxy::BackendResponse response;
  try {
    proxy::BackendRequest request{"POST", path_, {}, body};
    request.headers.set("Host", host_header_);
    request.headers.set("Content-Type", "application/json");
    request.headers.set("Accept", "application/json, */*");
    request.headers.set("User-Agent", "kube-apiserver");
    if (!authorization_.empty()) request.headers.set("Authorization", authorization_);
    auto exchanging = pool_->exchange(backend_, std::move(request), std::min(deadline, Clock::now() + request_timeout_),
                                      kMaxResponseBytes);
    response = co_await std::move(exchanging);
  } catch (const std::exception& error) {
    failure = error.what();
  }
  if (!failure.empty()) {
    // client.Timeout's wording when the request timeout ends the call.
    if (failure == "context deadline exceeded") failure += " (Client.Timeout exceeded while awaiting headers)";
    const bool reset = is_connection_reset(failure);
    throw CallError(prefix + failure, 0, reset);
  }
  const std::string content_type(response.headers.get("Content-Type").value_or(""));
  if (response.status < 200 || response.status > 206) {
    const bool retry_after = response.headers.get("Retry-After").has_value() &&
                             (response.status == 429 || response.status >= 500);
    if (is_json_media_type(content_type)) {
      if (std::optional<json::object> status = registry::parse_json_object(response.body);
          status && fields::string_at(*status, "kind") == "Status") {
        throw CallError(std::string(fields::string_at(*status, "message")), response.status,
                        retriable_status(response.status, retry_after, &*status));
      }
    }
    const bool text = content_type.starts_with("text/") || content_type.empty();
    throw CallError(unexpected_response_message(response.status, response.body, text), response.status,
                    retriable_status(response.status, retry_after, nullptr));
  }
  if (!is_json_media_type(content_type))
    throw CallError("serializer for " + content_type + " doesn't exist", response.status, false);
  co_return std::move(response.body);
}

asio::awaitable<std::string> GenericWebhook::post(std::string body, Clock::time_point deadline,
                                                  AttemptObserver observe) const {
  std::chrono::duration<double, std::milli> pause = backoff_.initial;
  std::mt19937 random(std::random_device{}());
  for (int attempt = 1;; ++attempt) {
    std::optional<CallError> failure;
    std::string answer;
    const auto started = Clock::now();
    try {
      auto posting = post_once(body, deadline);
      answer = co_await std::move(posting);
    } catch (const CallError& error) {
      failure = error;
    }
    if (observe) {
      Attempt attempt{.took = Clock::now() - started};
      if (failure) {
        attempt.status = failure->status();
        attempt.error = &*failure;
        asio::cancellation_state cancellation = co_await asio::this_coro::cancellation_state;
        attempt.canceled = cancellation.cancelled() != asio::cancellation_type::none;
      } else {
        attempt.status = 200;
      }
      observe(attempt);
    }
    if (!failure) co_return answer;
    // wait.ExponentialBackoffWithContext: `steps` attempts, then the last error; none past the caller's deadline.
    if (!failure->retriable() || attempt >= backoff_.steps) throw *failure;
    auto wait = pause;
    if (backoff_.jitter > 0) wait += pause * backoff_.jitter * std::uniform_real_distribution<double>(0, 1)(random);
    pause *= backoff_.factor;
    const auto wait_for = std::chrono::duration_cast<Clock::duration>(wait);
    if (deadline != Clock::time_point::max() && Clock::now() + wait_for >= deadline) throw *failure;
    auto sleeping = base::sleep_for(wait_for);
    co_await std::move(sleeping);
  }
}

}  // namespace kapi::webhook
