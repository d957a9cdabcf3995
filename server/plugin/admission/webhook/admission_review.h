#pragma once
// The AdmissionReview a webhook is sent and what is read from its answer
// (k8s.io/apiserver/pkg/admission/plugin/webhook/request/admissionreview.go).
#include "server/admission/attributes.h"
#include "server/apierrors/errors.h"
#include "server/plugin/admission/webhook/matching.h"

#include <boost/json/object.hpp>

#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace kapi::admission::webhook {

struct ReviewRequest {
  std::string uid;
  std::string version;  // "v1" or "v1beta1"
  std::string body;     // the serialized AdmissionReview
};

// CreateAdmissionObjects: the first of the webhook's admissionReviewVersions kapi knows. Throws
// std::runtime_error "webhook does not accept known AdmissionReview versions (v1, v1beta1)".
ReviewRequest make_review(const Webhook& webhook, const Invocation& invocation, const Attributes& attributes);

struct ReviewResponse {
  bool allowed = false;
  std::string patch;       // decoded from base64; empty when none
  std::string patch_type;  // normalized to v1's "JSONPatch" for v1beta1
  std::optional<boost::json::object> result;  // response.status
  std::map<std::string, std::string> audit_annotations;
  std::vector<std::string> warnings;
};

// The body could not be decoded as an AdmissionReview (what the REST client's Into reports: the call failed).
struct UndecodableResponse : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// The decoded review fails VerifyAdmissionResponse ("received invalid webhook response: ...").
struct InvalidResponse : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Decodes and verifies the webhook's answer (VerifyAdmissionResponse), throwing one of the two errors above.
ReviewResponse read_review(const ReviewRequest& request, std::string_view body, bool mutating);

// webhookerrors.ToStatusErr: the Status of a refusal, "admission webhook \"<name>\" denied the request: ...",
// with the webhook's code (at least 400), reason and details.
apierrors::Status denial_status(const std::string& webhook_name, const std::optional<boost::json::object>& result);

}  // namespace kapi::admission::webhook
