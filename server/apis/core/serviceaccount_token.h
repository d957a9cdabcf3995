#pragma once
// serviceaccounts/token (pkg/registry/core/serviceaccount/storage/token.go): the TokenRequest API, with which
// `kubectl create token` and the kubelet get bound service account tokens.
#include "server/authentication/service_account.h"
#include "server/registry/strategy.h"

#include <chrono>
#include <memory>

namespace kapi::apis::core {

struct TokenRequestConfig {
  std::shared_ptr<const authentication::TokenIssuer> issuer;  // none: the subresource is not served
  authentication::Audiences api_audiences;                    // a request that names no audience gets these
  std::chrono::seconds max_expiration{0};                     // --service-account-max-token-expiration; 0: none
  bool extend_expiration = true;  // --service-account-extend-token-expiration: kubelets' 3607 s tokens last a year
  authentication::ObjectGetter objects;  // the pods, secrets and nodes a token is bound to
};

registry::CreateSubresource serviceaccount_token(TokenRequestConfig config);

}  // namespace kapi::apis::core
