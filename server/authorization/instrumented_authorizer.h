#pragma once
// kube's InstrumentedAuthorizer (k8s.io/apiserver/pkg/authorization/metrics): one authorizer of the chain, its
// terminal decisions counted in apiserver_authorization_decisions_total by its type ("RBAC", "Webhook", ...), its
// name (the configuration file's, or for --authorization-mode the mode in lower case and "default" for the
// webhook) and the decision ("allowed", "denied"); no opinion is not terminal and is not counted. kube-apiserver
// wraps every configured authorizer so, but not the system:masters one in front of them.
#include "server/authorization/authorizer.h"
#include "server/metrics/authorization.h"

#include <memory>
#include <string>

namespace kapi::authorization {

class InstrumentedAuthorizer final : public Authorizer {
 public:
  InstrumentedAuthorizer(std::string type, std::string name, std::shared_ptr<const Authorizer> delegate,
                         metrics::AuthorizationFamilies& metrics)
      : type_(std::move(type)), name_(std::move(name)), delegate_(std::move(delegate)), metrics_(metrics) {}

  Result authorize(const Attributes& attributes) const override;
  bool decides_in_memory() const override { return delegate_->decides_in_memory(); }
  asio::awaitable<Result> authorize_async(const Attributes& attributes) const override;
  RuleSet rules_for(const request::UserInfo& user, const std::string& namespace_) const override {
    return delegate_->rules_for(user, namespace_);
  }

 private:
  void record(const Result& result) const;

  std::string type_;
  std::string name_;
  std::shared_ptr<const Authorizer> delegate_;
  metrics::AuthorizationFamilies& metrics_;
};

// `authorizer` instrumented when there is somewhere to count (`metrics` not null), else as it is.
std::shared_ptr<const Authorizer> instrumented(std::string type, std::string name,
                                               std::shared_ptr<const Authorizer> authorizer,
                                               metrics::AuthorizationFamilies* metrics);

}  // namespace kapi::authorization
