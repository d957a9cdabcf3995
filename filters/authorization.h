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

  asio::awaitable<void> handle(Exchange& exchange, Next next) override {
    authorization::Attributes attributes = request_attributes(exchange);
    authorization::Result result;
    if (authorizer_->decides_in_memory()) {
      result = authorizer_->authorize(attributes);
    } else {
      auto deciding = authorizer_->authorize_async(attributes);
      result = co_await std::move(deciding);
    }
    // kube's audit annotations: the decision, and the authorizer's reason even when it gave none.
    const bool allowed = result.decision == authorization::Decision::Allow;
    if (allowed) {
      exchange.context.audit_annotations.emplace("authorization.k8s.io/decision", "allow");
      exchange.context.audit_annotations.emplace("authorization.k8s.io/reason", result.reason);
      co_return co_await next(exchange);
    }
    // An authorizer that could not decide, and nothing allowed: kube's InternalError, whatever the decision.
    if (!result.error.empty()) {
      exchange.context.audit_annotations.emplace("authorization.k8s.io/reason", "internal error");
      co_return co_await write_internal_error(exchange, result.error);
    }
    exchange.context.audit_annotations.emplace("authorization.k8s.io/decision", "forbid");
    exchange.context.audit_annotations.emplace("authorization.k8s.io/reason", result.reason);
    std::string message = authorization::forbidden_message(attributes);
    if (!result.reason.empty()) message += ": " + result.reason;
    // kube's ForbiddenStatusError: the subresource is named in the message, not in the qualified resource
    // (`pods "web" is forbidden: User "jane" cannot create resource "pods/exec" ...`).
    co_await http::write_status(*exchange.response, apierrors::forbidden(attributes.api_group, attributes.resource,
                                                                         attributes.name, std::move(message)));
  }

 private:
  std::shared_ptr<const authorization::Authorizer> authorizer_;
};

}  // namespace kapi::filters
