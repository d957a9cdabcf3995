#pragma once
// WithImpersonation: a request may act as another identity through the Impersonate-User, Impersonate-Group,
// Impersonate-Uid and Impersonate-Extra-<key> headers. Every part of that identity is an authorization question of
// its own (verb `impersonate` on users, serviceaccounts, groups, uids or userextras/<key>), asked about the real
// sender; one denial answers 403 as the authorization stage would. Once all are allowed the request goes on as the
// impersonated user, without those headers, and the real sender stays in the context for the audit.
#include "filters/filter.h"
#include "server/authorization/authorizer.h"

#include <memory>
#include <string>
#include <vector>

namespace kapi::filters {

// One part of the identity a request asks for (kube builds a v1.ObjectReference for each).
struct ImpersonationRequest {
  enum class Kind { User, ServiceAccount, Group, UserExtra, Uid };
  Kind kind;
  std::string name;        // the user, service account, group or uid; the value of a user extra
  std::string namespace_;  // a service account's
  std::string extra_key;   // a user extra's: the header's suffix, lower-cased and percent-decoded
};

struct ParsedImpersonation {
  // In kube's order: the user (or service account), the groups, the extras, the uid. Empty: no impersonation.
  std::vector<ImpersonationRequest> requests;
  // Set when groups, extras or a uid come without a user: kube's "requested [...] without impersonating a user".
  std::string error;
};

ParsedImpersonation parse_impersonation_headers(const http::Headers& headers);

// What is asked of the authorizer before `requestor` may take on `request`.
authorization::Attributes impersonation_attributes(const UserInfo& requestor, const ImpersonationRequest& request);

// The user the request acts as once every part was allowed: the requested groups (a service account's own groups
// when none were named) plus system:authenticated, or system:unauthenticated for system:anonymous.
UserInfo impersonated_user(const std::vector<ImpersonationRequest>& requests);

class ImpersonationFilter final : public Filter {
 public:
  explicit ImpersonationFilter(std::shared_ptr<const authorization::Authorizer> authorizer)
      : authorizer_(std::move(authorizer)) {}
  std::string_view name() const override { return "impersonation"; }
  asio::awaitable<void> handle(Exchange& exchange, Next next) override;

 private:
  // The Impersonate-* headers `requests` came from, each authorized, then the request passed on as that user.
  asio::awaitable<void> impersonate(Exchange& exchange, Next next, std::vector<ImpersonationRequest> requests) const;

  std::shared_ptr<const authorization::Authorizer> authorizer_;
};

}  // namespace kapi::filters
