#include "server/apierrors/errors.h"

#include <boost/json.hpp>

namespace kapi::apierrors {
namespace {

std::string qualified(std::string_view group, std::string_view resource) {
  std::string out(resource);
  if (!group.empty()) out.append(".").append(group);
  return out;
}

StatusDetails details_for(std::string_view group, std::string_view resource, std::string_view name) {
  StatusDetails details;
  details.name = name;
  details.group = group;
  details.kind = resource;
  return details;
}

}  // namespace

std::string to_json(const Status& status) {
  boost::json::object out;
  out["kind"] = "Status";
  out["apiVersion"] = "v1";
  boost::json::object metadata;
  if (!status.continue_token.empty()) metadata["continue"] = status.continue_token;
  out["metadata"] = std::move(metadata);
  out["status"] = status.code >= 200 && status.code < 300 ? "Success" : "Failure";
  if (!status.message.empty()) out["message"] = status.message;
  if (!status.reason.empty()) out["reason"] = status.reason;
  if (status.details) {
    const StatusDetails& d = *status.details;
    boost::json::object details;
    if (!d.name.empty()) details["name"] = d.name;
    if (!d.group.empty()) details["group"] = d.group;
    if (!d.kind.empty()) details["kind"] = d.kind;
    if (!d.uid.empty()) details["uid"] = d.uid;
    if (!d.causes.empty()) {
      boost::json::array causes;
      for (const auto& cause : d.causes) {
        boost::json::object c;
        if (!cause.reason.empty()) c["reason"] = cause.reason;
        if (!cause.message.empty()) c["message"] = cause.message;
        if (!cause.field.empty()) c["field"] = cause.field;
        causes.push_back(std::move(c));
      }
      details["causes"] = std::move(causes);
    }
    if (d.retry_after_seconds > 0) details["retryAfterSeconds"] = d.retry_after_seconds;
    out["details"] = std::move(details);
  }
  out["code"] = status.code;
  return boost::json::serialize(out);
}

Status not_found(std::string_view group, std::string_view resource, std::string_view name) {
  return {404, "NotFound", qualified(group, resource) + " \"" + std::string(name) + "\" not found",
          details_for(group, resource, name)};
}

Status already_exists(std::string_view group, std::string_view resource, std::string_view name) {
  return {409, "AlreadyExists", qualified(group, resource) + " \"" + std::string(name) + "\" already exists",
          details_for(group, resource, name)};
}

Status conflict(std::string_view group, std::string_view resource, std::string_view name, std::string_view why) {
  return {409, "Conflict",
          "Operation cannot be fulfilled on " + qualified(group, resource) + " \"" + std::string(name) +
              "\": " + std::string(why),
          details_for(group, resource, name)};
}

Status bad_request(std::string message) { return {400, "BadRequest", std::move(message), std::nullopt}; }

Status invalid(std::string_view group, std::string_view kind, std::string_view name,
               const validation::ErrorList& errors) {
  StatusDetails details = details_for(group, kind, name);
  std::string aggregate;
  for (const auto& error : errors) {
    details.causes.push_back({std::string(error.reason()), error.body(), error.field});
    aggregate += (aggregate.empty() ? "" : ", ") + error.text();
  }
  if (errors.size() > 1) aggregate = "[" + aggregate + "]";
  return {422, "Invalid", qualified(group, kind) + " \"" + std::string(name) + "\" is invalid: " + aggregate,
          std::move(details)};
}

Status method_not_supported(std::string_view group, std::string_view resource, std::string_view action) {
  return {405, "MethodNotAllowed",
          std::string(action) + " is not supported on resources of kind \"" + qualified(group, resource) + "\"",
          details_for(group, resource, "")};
}

Status too_many_requests(std::string message, int retry_after_seconds) {
  StatusDetails details;
  details.retry_after_seconds = retry_after_seconds;
  return {429, "TooManyRequests", std::move(message), details};
}

Status timeout(std::string message, int retry_after_seconds) {
  StatusDetails details;
  details.retry_after_seconds = retry_after_seconds;
  return {504, "Timeout", "Timeout: " + message, details};
}

Status internal_error(std::string message) {
  StatusDetails details;
  details.causes.push_back({"", message, ""});
  return {500, "InternalError", "Internal error occurred: " + message, details};
}

Status service_unavailable(std::string message) {
  return {503, "ServiceUnavailable", std::move(message), std::nullopt};
}

Status request_entity_too_large(std::string message) {
  return {413, "RequestEntityTooLarge", "Request entity too large: " + message, std::nullopt};
}

Status unsupported_media_type(std::string_view accepted_types) {
  return {415, "UnsupportedMediaType",
          "the body of the request was in an unknown format - accepted media types include: " +
              std::string(accepted_types),
          std::nullopt};
}

Status not_acceptable(std::string message) { return {406, "NotAcceptable", std::move(message), std::nullopt}; }

Status forbidden(std::string_view group, std::string_view resource, std::string_view name, std::string message) {
  if (group.empty() && resource.empty()) return {403, "Forbidden", "forbidden: " + message, details_for(group, resource, name)};
  std::string subject = name.empty() ? qualified(group, resource) : qualified(group, resource) + " \"" + std::string(name) + "\"";
  return {403, "Forbidden", subject + " is forbidden: " + message, details_for(group, resource, name)};
}

Status unauthorized(std::string message) { return {401, "Unauthorized", std::move(message), std::nullopt}; }

Status gone(std::string message) { return {410, "Gone", std::move(message), std::nullopt}; }

Status resource_expired(std::string message) { return {410, "Expired", std::move(message), std::nullopt}; }

Status path_not_found() {
  return {404, "NotFound", "the server could not find the requested resource", StatusDetails{}};
}

}  // namespace kapi::apierrors
