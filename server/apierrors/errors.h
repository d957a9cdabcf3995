#pragma once
// metav1.Status errors with kube-apiserver's reasons, codes and wording (k8s.io/apimachinery/pkg/api/errors).
// Handlers throw ApiError; the endpoint layer and the filters turn it into a Status response.
#include "server/validation/field_error.h"

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace kapi::apierrors {

struct StatusCause {
  std::string reason;  // e.g. "FieldValueInvalid"
  std::string message;
  std::string field;
};

struct StatusDetails {
  std::string name;
  std::string group;
  std::string kind;
  std::string uid;
  std::vector<StatusCause> causes;
  int retry_after_seconds = 0;
};

struct Status {
  int code = 500;
  std::string reason;  // metav1.StatusReason; empty for "Unknown"
  std::string message;
  std::optional<StatusDetails> details;
  // metadata.continue: an expired list's token for an inconsistent continuation.
  std::string continue_token = {};
};

// The Status as the JSON body kube-apiserver writes ({"kind":"Status","apiVersion":"v1",...,"status":"Failure"}).
std::string to_json(const Status& status);

class ApiError : public std::runtime_error {
 public:
  explicit ApiError(Status status) : std::runtime_error(status.message), status_(std::move(status)) {}
  const Status& status() const noexcept { return status_; }

 private:
  Status status_;
};

// Resource-qualified errors take the resource the way kube does: "configmaps" or "deployments.apps".
Status not_found(std::string_view group, std::string_view resource, std::string_view name);
Status already_exists(std::string_view group, std::string_view resource, std::string_view name);
Status conflict(std::string_view group, std::string_view resource, std::string_view name, std::string_view why);
Status bad_request(std::string message);
// 422 Invalid: `ConfigMap "x" is invalid: <field errors>` with one cause per field error (apierrors.NewInvalid).
Status invalid(std::string_view group, std::string_view kind, std::string_view name,
               const validation::ErrorList& errors);
Status method_not_supported(std::string_view group, std::string_view resource, std::string_view action);
Status too_many_requests(std::string message, int retry_after_seconds);
Status timeout(std::string message, int retry_after_seconds);
Status internal_error(std::string message);
Status service_unavailable(std::string message);
Status request_entity_too_large(std::string message);
// accepted_types: e.g. "application/json, application/yaml, application/vnd.kubernetes.protobuf"
Status unsupported_media_type(std::string_view accepted_types);
Status not_acceptable(std::string message);
Status forbidden(std::string_view group, std::string_view resource, std::string_view name, std::string message);
Status unauthorized(std::string message);
Status gone(std::string message);
Status resource_expired(std::string message);
// The final delegate's answer for any path no server serves.
Status path_not_found();

}  // namespace kapi::apierrors
