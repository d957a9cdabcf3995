#pragma once
// The client kube-apiserver's webhooks of its own configuration share (k8s.io/apiserver/pkg/util/webhook:
// GenericWebhook, LoadKubeconfig, WithExponentialBackoff, DefaultShouldRetry): a kubeconfig-format file names the
// server and the credentials, every call is a JSON POST bounded by a request timeout, and a transient failure
// (connection reset, 500, 504, 429, or an answer asking to retry later) is tried again with exponential backoff.
// Token authentication, authorization and audit webhooks use it; the admission webhooks share its HTTP parts
// (parse_https_url, unexpected_response_message), all on kapi's proxy client and its keep-alive pool.
#include "server/proxy/connection_pool.h"

#include <asio/awaitable.hpp>

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

namespace kapi::webhook {

// A kubeconfig the webhook cannot use (client-go's clientcmd errors).
class KubeconfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What client-go's rest.Config holds of a kubeconfig's current context, as far as a webhook uses it.
struct WebhookTarget {
  std::string server;            // clusters[].cluster.server: "https://host[:port][/path]"
  std::string ca_pem;            // certificate-authority(-data); empty: the system roots
  bool insecure_skip_tls_verify = false;
  std::string tls_server_name;   // tls-server-name; empty: the server's host
  std::string client_cert_pem;   // users[].user.client-certificate(-data)
  std::string client_key_pem;    // users[].user.client-key(-data)
  std::string bearer_token;      // users[].user.token, or the content of tokenFile
};

// Reads the kubeconfig at `path` (YAML or JSON) as clientcmd does for a webhook: the current context's cluster and
// user, relative file paths resolved against the file's folder. Throws KubeconfigError.
WebhookTarget load_kubeconfig(const std::filesystem::path& path);
// The same from the file's text; `folder` resolves relative paths.
WebhookTarget parse_kubeconfig(std::string_view text, const std::filesystem::path& folder);

// wait.Backoff as kube's webhooks use it (DefaultRetryBackoffWithInitialDelay): at most `steps` attempts, the pause
// growing by `factor` from `initial`, each pause lengthened by up to `jitter` of itself.
struct RetryBackoff {
  std::chrono::milliseconds initial{500};
  double factor = 1.5;
  double jitter = 0.2;
  int steps = 5;
};

// A call that failed: `what()` as client-go words it ("Post \"https://...\": dial tcp ...: connect: connection
// refused", or the webhook's Status message), `status` the HTTP status when there was an answer (0 otherwise).
class CallError : public std::runtime_error {
 public:
  CallError(std::string message, int status, bool retriable)
      : std::runtime_error(std::move(message)), status_(status), retriable_(retriable) {}
  int status() const noexcept { return status_; }
  // DefaultShouldRetry's verdict.
  bool retriable() const noexcept { return retriable_; }

 private:
  int status_;
  bool retriable_;
};

// One attempt of a call (one round-trip), as post()'s observer sees it: for the metrics kube's webhooks record per
// round-trip (the authorization webhook's apiserver_authorization_webhook_*).
struct Attempt {
  std::chrono::duration<double> took{};
  int status = 0;                    // the HTTP status, when there was an answer
  const CallError* error = nullptr;  // null: a 2xx answer
  bool canceled = false;             // the caller was cancelled meanwhile (kube's ctx.Err() != nil)
};
using AttemptObserver = std::function<void(const Attempt&)>;

class GenericWebhook {
 public:
  using Clock = std::chrono::steady_clock;
  // kube's defaultRequestTimeout: a kubeconfig cannot set one.
  static constexpr std::chrono::milliseconds kDefaultRequestTimeout{30'000};

  // Throws KubeconfigError when the server URL or the TLS material is unusable.
  GenericWebhook(WebhookTarget target, RetryBackoff backoff = {},
                 std::chrono::milliseconds request_timeout = kDefaultRequestTimeout);
  ~GenericWebhook();
  GenericWebhook(const GenericWebhook&) = delete;
  GenericWebhook& operator=(const GenericWebhook&) = delete;

  // POSTs `body` (JSON) and returns the body of a 2xx answer, trying again as DefaultShouldRetry allows; each attempt
  // bounded by the request timeout, and none started once `deadline` passed. Throws CallError with the last
  // attempt's error. `observe`, when given, hears of every attempt. Safe from any thread.
  asio::awaitable<std::string> post(std::string body, Clock::time_point deadline = Clock::time_point::max(),
                                    AttemptObserver observe = {}) const;

  const std::string& url() const { return url_; }

 private:
  asio::awaitable<std::string> post_once(const std::string& body, Clock::time_point deadline) const;

  std::string url_;
  proxy::Backend backend_;
  std::string host_header_;
  std::string path_;
  std::string authorization_;
  RetryBackoff backoff_;
  std::chrono::milliseconds request_timeout_;
  std::unique_ptr<proxy::ConnectionPool> pool_;
};

// An https (or http) URL split as a webhook dials it.
struct ParsedUrl {
  bool tls = true;
  std::string host;         // without brackets
  std::uint16_t port = 443;
  std::string host_header;  // host[:port] as the URL has it
  std::string path;         // "/" when the URL has none; the query kept
};
// Throws std::invalid_argument for a URL that is not http(s)://host...
ParsedUrl parse_url(std::string_view url);

// errors.NewGenericServerResponse's wording for a non-2xx answer that is not a Status ("the server has asked for
// the client to provide credentials", "an error on the server (\"...\") has prevented the request from
// succeeding"); `text`: the body is text that may be quoted in the message.
std::string unexpected_response_message(int code, std::string_view body, bool text);

// Whether client-go decodes a body of this Content-Type (JSON or YAML, or none given).
bool is_json_media_type(std::string_view content_type);

}  // namespace kapi::webhook
