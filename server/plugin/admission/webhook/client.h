#pragma once
// The HTTPS call to one webhook (k8s.io/apiserver/pkg/util/webhook: client.go's ClientManager.HookClient and the
// REST client's Post().Do().Into()): to clientConfig.url, or to an endpoint of clientConfig.service (resolved as
// the aggregator resolves an APIService's Service, the serving certificate checked for
// "<name>.<namespace>.svc"), with ?timeout=<n>s and the webhook's timeout enforced on the whole exchange.
#include "server/plugin/admission/webhook/configuration.h"
#include "server/proxy/connection_pool.h"

#include <asio/awaitable.hpp>

#include <chrono>
#include <stdexcept>
#include <string>

namespace kapi::registry { class Store; }

namespace kapi::admission::webhook {

// The call failed (kube's ErrCallingWebhook): `what()` is its reason as kube words it after
// "failed calling webhook \"<name>\": " ("failed to call webhook: Post \"https://...\": context deadline exceeded"),
// `code` the status kube's metrics record for it: the webhook's answer when it gave one, 0 for a transport or
// decoding error (which the dispatchers count as kube does: 503 when mutating, 400 when validating).
class CallFailure : public std::runtime_error {
 public:
  CallFailure(std::string reason, int code) : std::runtime_error(std::move(reason)), code_(code) {}
  int code() const noexcept { return code_; }

 private:
  int code_;
};

struct ServiceStores {
  registry::Store* services = nullptr;
  registry::Store* endpoints = nullptr;
};

// POSTs `body` and returns the response body of a 2xx answer; anything else throws CallFailure. The call goes on a
// kept-alive connection of `pool` when one to the same target is idle, as Go's transport reuses them.
asio::awaitable<std::string> post_review(const Webhook& webhook, std::string body, ServiceStores stores,
                                         proxy::ConnectionPool& pool);

}  // namespace kapi::admission::webhook
