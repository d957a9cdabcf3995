#pragma once
// WithAuthorization: the authorizer (server/authorization) decides from the user and the request info; a denial
// is kube-apiserver's 403, e.g. `pods is forbidden: User "jane" cannot list resource "pods" in API group "" in
// the namespace "default"`, with the authorizers' reason after a colon when they gave one; an authorizer that could
// not decide (a webhook's error) makes it a 500 unless another allowed.
#include "filters/filter.h"
#include "filters/internal_error.h"
#include "server/authorization/authorizer.h"
#include "server/http/status_response.h"

#include <memory>

namespace kapi::filters {

// The authorizer attributes of the request as the chain knows them so far (kube's GetAuthorizerAttributes); the
// audit stage reads them too.
inline authorization::Attributes request_attributes(const Exchange& exchange) {
  authorization::Attributes attributes;
  if (exchange.context.user) attributes.user = *exchange.context.user;
  if (const auto& info = exchange.context.request_info) {
    attributes.verb = info->verb;
    attributes.resource_request = info->is_resource_request;
    attributes.path = info->path;
    attributes.namespace_ = info->namespace_;
    attributes.api_group = info->api_group;
    attributes.api_version = info->api_version;
    attributes.resource = info->resource;
    attributes.subresource = info->subresource;
    attributes.name = info->name;
    attributes.field_selector = info->field_selector;
    attributes.label_selector = info->label_selector;
  } else {
    attributes.path = exchange.request.path;
  }
  return attributes;
}

class AuthorizationFilter final : public Filter {
 public:
  explicit AuthorizationFilter(std::shared_ptr<const authorization::Authorizer> authorizer)
      : authorizer_(std::move(authorizer)) {}
  std::string_view name() const override { return "authorization"; }

  // An authorizer that decides in memory (RBAC, Node, AlwaysAllow) costs this stage no coroutine frame.
  asio::awaitable<void> handle(Exchange& exchange, Next next) override {
    authorization::Attributes attributes = request_attributes(exchange);
    if (!authorizer_->decides_in_memory()) return ask_then_serve(exchange, next, std::move(attributes));
    authorization::Result result = authorizer_->authorize(attributes);
    return serve(exchange, next, attributes, result);
  }

 private:
  asio::awaitable<void> ask_then_serve(Exchange& exchange, Next next, authorization::Attributes attributes) const {
    auto deciding = authorizer_->authorize_async(attributes);
    const authorization::Result result = co_await std::move(deciding);
    co_await serve(exchange, next, attributes, result);
  }

  // The request passed on or refused as `result` says. Not a coroutine: the arguments are read before it returns.
  static asio::awaitable<void> serve(Exchange& exchange, Next next, const authorization::Attributes& attributes,
                                     const authorization::Result& result) {
    // kube's audit annotations, for an audited request: the decision, and the authorizer's reason even when it
    // gave none.
    auto annotate = [&](const char* key, const std::string& value) {
      if (exchange.context.audited) exchange.context.audit_annotations.emplace(key, value);
    };
    const bool allowed = result.decision == authorization::Decision::Allow;
    if (allowed) {
      annotate("authorization.k8s.io/decision", "allow");
      annotate("authorization.k8s.io/reason", result.reason);
      return next(exchange);
    }
    // An authorizer that could not decide, and nothing allowed: kube's InternalError, whatever the decision.
    if (!result.error.empty()) {
      annotate("authorization.k8s.io/reason", "internal error");
      return write_internal_error(exchange, result.error);
    }
    annotate("authorization.k8s.io/decision", "forbid");
    annotate("authorization.k8s.io/reason", result.reason);
    std::string message = authorization::forbidden_message(attributes);
    if (!result.reason.empty()) message += ": " + result.reason;
    // kube's ForbiddenStatusError: the subresource is named in the message, not in the qualified resource
    // (`pods "web" is forbidden: User "jane" cannot create resource "pods/exec" ...`).
    return http::write_status(*exchange.response, apierrors::forbidden(attributes.api_group, attributes.resource,
                                                                       attributes.name, std::move(message)));
  }

  std::shared_ptr<const authorization::Authorizer> authorizer_;
};

}  // namespace kapi::filters
