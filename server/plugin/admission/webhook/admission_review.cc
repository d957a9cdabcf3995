// AdmissionReview requests and responses (k8s.io/apiserver/pkg/admission/plugin/webhook/request/admissionreview.go)
// and the refusal Status (pkg/admission/plugin/webhook/errors/statuserror.go).
#include "server/plugin/admission/webhook/admission_review.h"

#include "base/base64.h"
#include "base/go_json_errors.h"
#include "base/uuid.h"
#include "server/patch/go_json.h"
#include "server/plugin/admission/cel/request.h"

#include <boost/json.hpp>

#include <algorithm>

namespace kapi::admission::webhook {
namespace {

namespace json = boost::json;

std::string string_member(const json::object& object, std::string_view key) {
  const json::value* value = object.if_contains(key);
  return value && value->is_string() ? std::string(value->as_string()) : std::string();
}

}  // namespace

ReviewRequest make_review(const Webhook& webhook, const Invocation& invocation, const Attributes& attributes) {
  const auto known = std::ranges::find_if(webhook.admission_review_versions,
                                          [](const std::string& version) { return version == "v1" || version == "v1beta1"; });
  if (known == webhook.admission_review_versions.end())
    throw std::runtime_error("webhook does not accept known AdmissionReview versions (v1, v1beta1)");
  ReviewRequest review{base::new_uuid(), *known, {}};
  // The request CEL expressions see, with what only the webhook is sent: its uid and the objects.
  json::object request = cel_runtime::admission_request(attributes, invocation.resource, invocation.kind);
  request["uid"] = review.uid;
  request["object"] = attributes.object ? json::value(*attributes.object) : json::value(nullptr);
  request["oldObject"] = attributes.old_object ? json::value(*attributes.old_object) : json::value(nullptr);
  json::object document{{"kind", "AdmissionReview"},
                        {"apiVersion", "admission.k8s.io/" + review.version},
                        {"request", std::move(request)}};
  review.body = json::serialize(document);
  return review;
}

ReviewResponse read_review(const ReviewRequest& request, std::string_view body, bool mutating) {
  // The JSON serializer's Decode: the type is found first, then the object decoded into AdmissionReview.
  std::string syntax_error;
  std::optional<json::value> parsed = patch::detail::parse_json(body, syntax_error);
  if (!parsed) throw UndecodableResponse("couldn't get version/kind; json parse error: " + syntax_error);
  if (!parsed->is_object())
    throw UndecodableResponse("couldn't get version/kind; json parse error: json: cannot unmarshal " +
                              std::string(base::go_json_kind(*parsed)) +
                              " into Go value of type struct { APIVersion string \"json:\\\"apiVersion,omitempty\\\"\"; "
                              "Kind string \"json:\\\"kind,omitempty\\\"\" }");
  const json::object& review = parsed->as_object();
  const std::string kind = string_member(review, "kind");
  const std::string api_version = string_member(review, "apiVersion");
  if (kind.empty()) throw UndecodableResponse("Object 'Kind' is missing in '" + std::string(body) + "'");

  const json::value* response_value = review.if_contains("response");
  if (!response_value || !response_value->is_object()) throw InvalidResponse("webhook response was absent");
  const json::object& response = response_value->as_object();
  const bool v1 = request.version == "v1";
  if (v1) {
    const std::string uid = string_member(response, "uid");
    if (uid != request.uid)
      throw InvalidResponse("expected response.uid=\"" + request.uid + "\", got \"" + uid + "\"");
    if (api_version != "admission.k8s.io/v1" || kind != "AdmissionReview") {
      const std::size_t slash = api_version.find('/');
      const std::string group = slash == std::string::npos ? "" : api_version.substr(0, slash);
      const std::string version = slash == std::string::npos ? api_version : api_version.substr(slash + 1);
      throw InvalidResponse("expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got " + group +
                            "/" + version + ", Kind=" + kind);
    }
  }

  ReviewResponse out;
  if (const json::value* allowed = response.if_contains("allowed"); allowed && allowed->is_bool())
    out.allowed = allowed->as_bool();
  const std::string encoded_patch = string_member(response, "patch");
  if (!encoded_patch.empty()) {
    std::optional<std::string> decoded = base::base64_decode(encoded_patch);
    if (!decoded) throw UndecodableResponse("illegal base64 data in response.patch");
    out.patch = std::move(*decoded);
  }
  const json::value* patch_type = response.if_contains("patchType");
  const bool has_patch_type = patch_type && patch_type->is_string();
  if (mutating && v1) {
    if (!out.patch.empty() && !has_patch_type)
      throw InvalidResponse("webhook returned response.patch but not response.patchType");
    if (out.patch.empty() && has_patch_type)
      throw InvalidResponse("webhook returned response.patchType but not response.patch");
    if (has_patch_type) {
      out.patch_type = std::string(patch_type->as_string());
      if (out.patch_type.empty()) throw InvalidResponse("webhook returned invalid response.patchType of \"\"");
    }
  } else if (mutating) {
    // v1beta1 never checked the type: a patch is taken as the one type there is.
    if (!out.patch.empty()) out.patch_type = "JSONPatch";
  } else if (v1) {
    if (!out.patch.empty()) throw InvalidResponse("validating webhook may not return response.patch");
    if (has_patch_type) throw InvalidResponse("validating webhook may not return response.patchType");
  } else {
    out.patch.clear();  // v1beta1 validating answers were never checked; their patch is dropped
  }
  if (const json::value* status = response.if_contains("status"); status && status->is_object())
    out.result = status->as_object();
  if (const json::value* annotations = response.if_contains("auditAnnotations"); annotations && annotations->is_object())
    for (const auto& [key, value] : annotations->as_object())
      if (value.is_string()) out.audit_annotations.emplace(std::string(key), std::string(value.as_string()));
  if (const json::value* warnings = response.if_contains("warnings"); warnings && warnings->is_array())
    for (const json::value& warning : warnings->as_array())
      if (warning.is_string()) out.warnings.emplace_back(warning.as_string());
  return out;
}

apierrors::Status denial_status(const std::string& webhook_name, const std::optional<json::object>& result) {
  const std::string denied_by = "admission webhook \"" + webhook_name + "\" denied the request";
  apierrors::Status status;
  status.code = 0;
  std::string message;
  if (result) {
    if (const json::value* code = result->if_contains("code"); code && code->is_int64())
      status.code = static_cast<int>(code->as_int64());
    status.reason = string_member(*result, "reason");
    message = string_member(*result, "message");
    if (const json::value* details = result->if_contains("details"); details && details->is_object()) {
      const json::object& source = details->as_object();
      apierrors::StatusDetails out;
      out.name = string_member(source, "name");
      out.group = string_member(source, "group");
      out.kind = string_member(source, "kind");
      out.uid = string_member(source, "uid");
      if (const json::value* retry = source.if_contains("retryAfterSeconds"); retry && retry->is_int64())
        out.retry_after_seconds = static_cast<int>(retry->as_int64());
      if (const json::value* causes = source.if_contains("causes"); causes && causes->is_array())
        for (const json::value& cause : causes->as_array())
          if (cause.is_object())
            out.causes.push_back({string_member(cause.as_object(), "reason"), string_member(cause.as_object(), "message"),
                                  string_member(cause.as_object(), "field")});
      status.details = std::move(out);
    }
  }
  if (status.code < 400) status.code = 400;
  if (!message.empty()) status.message = denied_by + ": " + message;
  else if (!status.reason.empty()) status.message = denied_by + ": " + status.reason;
  else status.message = denied_by + " without explanation";
  return status;
}

}  // namespace kapi::admission::webhook
