#include "filters/audit.h"
#include "filters/response_swap.h"

#include "filters/authorization.h"
#include "filters/internal_error.h"

#include "server/apierrors/errors.h"
#include "server/http/query.h"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <exception>
#include <system_error>

namespace kapi::filters {
namespace {

namespace json = boost::json;
using audit::Level;
using audit::Stage;

constexpr std::size_t kMaxUserAgentLength = 1024;
constexpr std::string_view kDecisionAnnotation = "authorization.k8s.io/decision";

bool is_json_media_type(std::optional<std::string_view> content_type) {
  if (!content_type) return false;
  std::string_view type = content_type->substr(0, content_type->find(';'));
  while (!type.empty() && type.back() == ' ') type.remove_suffix(1);
  return type == "application/json" || (type.starts_with("application/") && type.ends_with("+json"));
}

std::string user_agent_of(const http::Request& request) {
  std::string agent(request.headers.get("User-Agent").value_or(""));
  if (agent.size() > kMaxUserAgentLength) agent = agent.substr(0, kMaxUserAgentLength) + "...TRUNCATED";
  return agent;
}

// NewEventFromRequest / LogRequestMetadata.
audit::Event new_event(const Exchange& exchange, const authorization::Attributes& attributes,
                       const audit::RequestAuditConfig& config) {
  audit::Event event;
  event.level = config.level;
  event.omit_managed_fields = config.omit_managed_fields;
  event.audit_id = exchange.context.audit_id;
  event.request_uri = exchange.request.target;
  event.verb = attributes.verb;
  event.user = attributes.user;
  event.source_ips = audit::source_ips(exchange.request.headers, exchange.request.remote_address);
  event.user_agent = user_agent_of(exchange.request);
  if (attributes.resource_request)
    event.object_ref = audit::ObjectReference{.resource = attributes.resource,
                                              .namespace_ = attributes.namespace_,
                                              .name = attributes.name,
                                              .api_group = attributes.api_group,
                                              .api_version = attributes.api_version,
                                              .subresource = attributes.subresource};
  event.request_received_timestamp = exchange.context.received_at.time_since_epoch().count() != 0
                                         ? exchange.context.received_at
                                         : std::chrono::system_clock::now();
  return event;
}

// The bounded fields of a metav1.Status response kube copies into responseStatus (LogResponseObject).
void read_status_body(std::string_view body, audit::ResponseStatus& status) {
  if (body.substr(0, 64).find("\"kind\":\"Status\"") == std::string_view::npos) return;
  json::error_code error;
  json::value document = json::parse(body, error);
  if (error || !document.is_object()) return;
  const json::object& fields = document.get_object();
  auto text = [&](std::string_view name) {
    const json::value* value = fields.if_contains(name);
    return value && value->is_string() ? std::string(value->get_string()) : std::string();
  };
  status.status = text("status");
  status.message = text("message");
  status.reason = text("reason");
  if (const json::value* details = fields.if_contains("details"); details && details->is_object())
    status.details = json::serialize(*details);
  if (const json::value* code = fields.if_contains("code"); code && code->is_int64())
    status.code = static_cast<int>(code->get_int64());
}

// One request's audit: the event, and when and how its stages are sent.
class Recorder {
 public:
  Recorder(audit::Event event, audit::RequestAuditConfig config, audit::Backend& backend, metrics::Registry& metrics)
      : event_(std::move(event)), config_(std::move(config)), backend_(backend), metrics_(metrics) {}

  audit::Event& event() { return event_; }
  bool has_status() const { return event_.response_status.has_value(); }

  // processAuditEvent: skipped when omitted; a copy goes to the backend, the event lives on for the later stages.
  // False when a blocking-strict backend could not store it.
  asio::awaitable<bool> send(Stage stage) {
    event_.stage = stage;
    if (config_.omits(stage)) co_return true;
    event_.stage_timestamp =
        stage == Stage::RequestReceived ? event_.request_received_timestamp : std::chrono::system_clock::now();
    metrics_.audit_events.inc({});
    std::vector<audit::Event> events;
    events.push_back(event_);
    auto processing = backend_.process_events(std::move(events));
    co_return co_await std::move(processing);
  }

  // What the stages after this one learnt: the impersonated user, the authorization annotations, the request
  // object the handler read (only when it was allowed to run, as kube logs it from the handler).
  void complete_from(const Exchange& exchange) {
    const RequestContext& context = exchange.context;
    if (context.impersonated_by && context.user) event_.impersonated_user = *context.user;
    for (const auto& [key, value] : context.audit_annotations) event_.annotations.emplace(key, value);
    auto decision = context.audit_annotations.find(std::string(kDecisionAnnotation));
    const bool handled = decision != context.audit_annotations.end() && decision->second == "allow";
    if (handled && !request_logged_) log_request_object(exchange.request);
  }

  void record_response(int code, std::string_view body, bool json_body) {
    if (!event_.response_status) event_.response_status.emplace();
    event_.response_status->code = code;
    if (json_body) read_status_body(body, *event_.response_status);
    if (json_body && event_.level >= Level::RequestResponse) event_.response_object = std::string(body);
  }

 private:
  // LogRequestObject / LogRequestPatch: the object's metadata completes objectRef (create and update), the body
  // itself is the requestObject from the Request level on. A body that is not JSON is not recorded.
  void log_request_object(const http::Request& request) {
    request_logged_ = true;
    if (request.body.empty() || !is_json_media_type(request.headers.get("Content-Type"))) return;
    if (event_.object_ref && (event_.verb == "create" || event_.verb == "update")) {
      json::error_code error;
      json::value object = json::parse(request.body, error);
      const json::value* metadata = !error && object.is_object() ? object.get_object().if_contains("metadata") : nullptr;
      if (metadata && metadata->is_object()) {
        auto fill = [&](std::string& field, std::string_view name) {
          const json::value* value = metadata->get_object().if_contains(name);
          if (field.empty() && value && value->is_string()) field = std::string(value->get_string());
        };
        fill(event_.object_ref->namespace_, "namespace");
        fill(event_.object_ref->name, "name");
        fill(event_.object_ref->uid, "uid");
        fill(event_.object_ref->resource_version, "resourceVersion");
      }
    }
    if (event_.level >= Level::Request) event_.request_object = request.body;
  }

  audit::Event event_;
  audit::RequestAuditConfig config_;
  audit::Backend& backend_;
  metrics::Registry& metrics_;
  bool request_logged_ = false;
};

// auditResponseWriter: the first status seen is the event's; a long-running response sends ResponseStarted then.
class AuditResponseWriter final : public http::ResponseWriterDecorator {
 public:
  AuditResponseWriter(http::ResponseWriter& inner, Recorder& recorder, const Exchange& exchange,
                      bool send_response_started)
      : ResponseWriterDecorator(inner), recorder_(recorder), exchange_(exchange),
        send_response_started_(send_response_started) {}

  asio::awaitable<void> write(int status, std::string body) override {
    if (!started_) {
      bool json_body = is_json_media_type(inner().headers().get("Content-Type"));
      recorder_.record_response(status, body, json_body);
      auto starting = started();
      co_await std::move(starting);
    }
    co_await inner().write(status, std::move(body));
  }

  asio::awaitable<void> begin_stream(int status) override {
    if (!started_) {
      recorder_.record_response(status, {}, false);
      auto starting = started();
      co_await std::move(starting);
    }
    co_await inner().begin_stream(status);
  }

 private:
  asio::awaitable<void> started() {
    started_ = true;
    if (!send_response_started_) co_return;
    recorder_.complete_from(exchange_);
    auto sending = recorder_.send(Stage::ResponseStarted);
    co_await std::move(sending);
  }

  Recorder& recorder_;
  const Exchange& exchange_;
  bool send_response_started_;
  bool started_ = false;
};

audit::ResponseStatus faked_success() { return {.status = "Success", .message = "Connection closed early", .code = 200}; }

// getAuthMethods: which credentials the failed request carried.
std::string authentication_methods(const http::Request& request) {
  std::vector<std::string_view> methods;
  std::string_view authorization = request.headers.get("Authorization").value_or("");
  while (!authorization.empty() && authorization.front() == ' ') authorization.remove_prefix(1);
  while (!authorization.empty() && authorization.back() == ' ') authorization.remove_suffix(1);
  auto scheme = authorization.substr(0, authorization.find(' '));
  const bool has_credentials = authorization.find(' ') != std::string_view::npos;
  if (has_credentials && http::iequals(scheme, "Basic")) methods.push_back("basic");
  if (has_credentials && http::iequals(scheme, "Bearer")) methods.push_back("bearer");
  if (!request.query.get("access_token").value_or("").empty()) methods.push_back("access_token");
  if (request.tls && request.peer_certificate) methods.push_back("x509");
  if (methods.empty()) return "Authentication failed, no credentials provided";
  std::string out = "Authentication failed, attempted: ";
  for (std::size_t i = 0; i < methods.size(); ++i) out.append(i ? ", " : "").append(methods[i]);
  return out;
}

}  // namespace

asio::awaitable<void> AuditFilter::handle(Exchange& exchange, Next next) {
  if (!settings_.enabled()) return next(exchange);
  authorization::Attributes attributes = request_attributes(exchange);
  audit::RequestAuditConfig config = audit::evaluate(*settings_.policy, attributes);
  metrics_.audit_levels.inc({std::string(audit::to_string(config.level))});
  if (config.level == Level::None) return next(exchange);
  return audited(exchange, next, std::move(attributes), std::move(config));
}

asio::awaitable<void> AuditFilter::audited(Exchange& exchange, Next next, authorization::Attributes attributes,
                                           audit::RequestAuditConfig config) const {
  exchange.context.audited = true;
  exchange.context.audit_records_requests = config.level >= Level::Request;

  Recorder recorder(new_event(exchange, attributes, config), config, *settings_.backend, metrics_);
  auto receiving = recorder.send(Stage::RequestReceived);
  const bool stored = co_await std::move(receiving);
  if (!stored) {
    metrics_.audit_requests_rejected.inc({});
    auto refusing = write_internal_error(exchange, "failed to store audit event");
    co_await std::move(refusing);
    co_return;
  }
  const bool long_running = exchange.context.long_running;
  AuditResponseWriter writer(*exchange.response, recorder, exchange, long_running);

  std::exception_ptr escaped;
  bool panicked = false;
  {
    ResponseSwap swap(exchange, writer);
    try {
      co_await next(exchange);
      // ResponseComplete is sent when a watch ends, and the stream writes through this stage's writer.
      if (exchange.handed_off.valid()) {
        auto rest = request::take_handed_off(exchange);
        co_await std::move(rest);
      }
    } catch (const apierrors::ApiError& error) {
      // Not a panic: the panic-recovery stage answers it with its Status, which is this request's response.
      escaped = std::current_exception();
      if (!recorder.has_status()) {
        std::string body = apierrors::to_json(error.status());
        recorder.record_response(error.status().code, body, true);
      }
    } catch (const std::system_error&) {
      escaped = std::current_exception();  // the client went away or the request was cancelled
    } catch (const std::exception& error) {
      escaped = std::current_exception();
      panicked = true;
      recorder.event().response_status = audit::ResponseStatus{
          .status = "Failure", .message = std::string("APIServer panic'd: ") + error.what(), .reason = "InternalError", .code = 500};
    } catch (...) {
      escaped = std::current_exception();
      panicked = true;
      recorder.event().response_status = audit::ResponseStatus{
          .status = "Failure", .message = "APIServer panic'd: unknown exception", .reason = "InternalError", .code = 500};
    }
  }
  recorder.complete_from(exchange);
  if (panicked) {
    auto sending = recorder.send(Stage::Panic);
    co_await std::move(sending);
  } else {
    if (!recorder.has_status() && long_running) {
      recorder.event().response_status = faked_success();
      auto sending = recorder.send(Stage::ResponseStarted);
      co_await std::move(sending);
    }
    if (!recorder.has_status()) recorder.event().response_status = faked_success();
    auto sending = recorder.send(Stage::ResponseComplete);
    co_await std::move(sending);
  }
  if (escaped) std::rethrow_exception(escaped);
}

Handler with_failed_authentication_audit(Handler unauthorized, AuditSettings settings, metrics::Registry& metrics) {
  if (!settings.enabled()) return unauthorized;
  return [unauthorized = std::move(unauthorized), settings = std::move(settings),
          &metrics](Exchange& exchange) -> asio::awaitable<void> {
    authorization::Attributes attributes = request_attributes(exchange);
    audit::RequestAuditConfig config = audit::evaluate(*settings.policy, attributes);
    metrics.audit_levels.inc({std::string(audit::to_string(config.level))});
    if (config.level == Level::None) co_return co_await unauthorized(exchange);
    Recorder recorder(new_event(exchange, attributes, config), config, *settings.backend, metrics);
    recorder.event().response_status = audit::ResponseStatus{.message = authentication_methods(exchange.request)};
    AuditResponseWriter writer(*exchange.response, recorder, exchange, true);
    ResponseSwap swap(exchange, writer);
    co_await unauthorized(exchange);
  };
}

}  // namespace kapi::filters
