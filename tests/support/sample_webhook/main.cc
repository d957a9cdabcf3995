// kapi-sample-webhook: an admission webhook server for kapi's webhook integration tests (in the spirit of the
// webhook image kube's e2e tests deploy). It serves HTTPS with kapi's own HTTP server and a CA of its own
// (ca.crt in --cert-dir: what a test puts into a webhook's caBundle), answers AdmissionReview v1 and v1beta1 in
// the version it was sent, and appends each review it receives to --request-log as one JSON line
// ({"path":..., "query":..., "remote":"<client ip:port>", "review":...}). Connections are kept alive (kapi's HTTP
// server, 90 s idle) unless the client asks to close; "remote" shows which connection carried each review. Paths:
//   /allow                 allowed
//   /mutate-add-label      allowed with a JSON patch adding the label webhook-added=true
//   /mutate-add-other-label  the same with the label other-added=true
//   /validate-deny-label   refuses objects labelled deny=true: code 403, reason Forbidden
//   /deny-no-code          refuses every request with a message and no code
//   /warn                  allowed with two warnings and an audit annotation checked=yes
//   /slow                  allowed after 5 s (past the tests' 1 s timeouts)
//   /garbage               200 with a body that is not JSON
//   /bad-patch             a JSON patch removing a label no object has
//   /wrong-uid             a response whose uid is not the request's
// It is also a token-review and an authorization webhook (kube-apiserver's --authentication-token-webhook-* and
// Webhook authorizer), answering TokenReview and SubjectAccessReview in the version it was sent:
//   /authenticate          token "alice-token": alice (uid 42, groups webhook-users, extra team=blue); token
//                          "revoked-token": not authenticated, error "token revoked"; any other: not authenticated
//   /authenticate-slow     the same after 5 s
//   /authorize             alice: secrets denied ("secrets are off limits for alice"), configmaps allowed ("alice may
//                          use configmaps"), anything else no opinion ("no opinion on this"); others: no opinion
//   /authorize-slow        allowed after 5 s
//   /authorize-flaky       500 the first time each review is seen, then as /authorize (the client must retry)
// And an audit collector (kube-apiserver's --audit-webhook-config-file): /audit takes an audit.k8s.io EventList,
// logged as the review, and answers 200; /audit-fail logs it and answers 500 (a collector that is down).
#include "server/http/http_server.h"
#include "tests/support/sample_apiserver/serve.h"
#include "tests/support/sample_apiserver/serving_pki.h"

#include "base/base64.h"

#include <asio/io_context.hpp>
#include <asio/steady_timer.hpp>
#include <asio/this_coro.hpp>
#include <asio/use_awaitable.hpp>
#include <boost/json.hpp>

#include <fstream>
#include <csignal>
#include <iostream>
#include <set>
#include <string>
#include <vector>

namespace {

namespace json = boost::json;
using namespace std::chrono_literals;

struct Flags {
  int secure_port = 0;
  std::filesystem::path cert_dir = "webhook-certs";
  std::vector<std::string> server_names = {"sample-webhook.default.svc"};
  std::filesystem::path request_log;
  std::string bind_address = "127.0.0.1";
};

bool has_label(const json::value& review, std::string_view key, std::string_view value) {
  const json::value* labels = nullptr;
  if (const json::value* request = review.as_object().if_contains("request"); request && request->is_object())
    if (const json::value* object = request->as_object().if_contains("object"); object && object->is_object())
      if (const json::value* metadata = object->as_object().if_contains("metadata"); metadata && metadata->is_object())
        labels = metadata->as_object().if_contains("labels");
  if (!labels || !labels->is_object()) return false;
  const json::value* found = labels->as_object().if_contains(key);
  return found && found->is_string() && found->as_string() == value;
}

bool has_labels(const json::value& review) {
  const json::value* request = review.as_object().if_contains("request");
  const json::value* object = request && request->is_object() ? request->as_object().if_contains("object") : nullptr;
  const json::value* metadata = object && object->is_object() ? object->as_object().if_contains("metadata") : nullptr;
  return metadata && metadata->is_object() && metadata->as_object().if_contains("labels") &&
         metadata->as_object().at("labels").is_object();
}

struct Reply {
  int status = 200;
  std::string body;
};

Reply review_reply(const json::value& review, json::object response) {
  json::object out{{"apiVersion", review.as_object().if_contains("apiVersion") ? review.at("apiVersion") : json::value("admission.k8s.io/v1")},
                   {"kind", "AdmissionReview"}};
  if (!response.contains("uid")) response["uid"] = review.at("request").at("uid");
  out["response"] = std::move(response);
  return {200, json::serialize(out)};
}

Reply answer(std::string_view path, const json::value& review) {
  if (path == "/allow") return review_reply(review, {{"allowed", true}});
  if (path == "/mutate-add-label") {
    json::array patch;
    if (has_labels(review))
      patch.push_back(json::object{{"op", "add"}, {"path", "/metadata/labels/webhook-added"}, {"value", "true"}});
    else
      patch.push_back(json::object{{"op", "add"}, {"path", "/metadata/labels"}, {"value", json::object{{"webhook-added", "true"}}}});
    return review_reply(review, {{"allowed", true},
                                 {"patchType", "JSONPatch"},
                                 {"patch", kapi::base::base64_encode(json::serialize(patch))}});
  }
  if (path == "/mutate-add-other-label") {
    json::array patch;
    if (has_labels(review))
      patch.push_back(json::object{{"op", "add"}, {"path", "/metadata/labels/other-added"}, {"value", "true"}});
    else
      patch.push_back(json::object{{"op", "add"}, {"path", "/metadata/labels"}, {"value", json::object{{"other-added", "true"}}}});
    return review_reply(review, {{"allowed", true},
                                 {"patchType", "JSONPatch"},
                                 {"patch", kapi::base::base64_encode(json::serialize(patch))}});
  }
  if (path == "/mutate-add-sidecar") {
    // A pod's containers gain one named "sidecar" (without resources), once.
    const json::value& containers = review.at("request").at("object").at("spec").at("containers");
    for (const json::value& container : containers.as_array())
      if (container.at("name") == "sidecar") return review_reply(review, {{"allowed", true}});
    const json::object sidecar{{"name", "sidecar"}, {"image", "busybox"}};
    json::array patch{json::object{{"op", "add"}, {"path", "/spec/containers/-"}, {"value", sidecar}}};
    return review_reply(review, {{"allowed", true},
                                 {"patchType", "JSONPatch"},
                                 {"patch", kapi::base::base64_encode(json::serialize(patch))}});
  }
  if (path == "/mutate-add-scheduling-gate") {
    const json::object& spec = review.at("request").at("object").at("spec").as_object();
    if (spec.contains("schedulingGates")) return review_reply(review, {{"allowed", true}});
    const json::array gates{json::object{{"name", "example.com/gate"}}};
    json::array patch{json::object{{"op", "add"}, {"path", "/spec/schedulingGates"}, {"value", gates}}};
    return review_reply(review, {{"allowed", true},
                                 {"patchType", "JSONPatch"},
                                 {"patch", kapi::base::base64_encode(json::serialize(patch))}});
  }
  if (path == "/validate-deny-label") {
    if (!has_label(review, "deny", "true")) return review_reply(review, {{"allowed", true}});
    return review_reply(review, {{"allowed", false},
                                 {"status", json::object{{"code", 403}, {"reason", "Forbidden"},
                                                         {"message", "the object carries the label deny=true"}}}});
  }
  if (path == "/deny-no-code")
    return review_reply(review, {{"allowed", false}, {"status", json::object{{"message", "denied by the sample webhook"}}}});
  if (path == "/warn")
    return review_reply(review, {{"allowed", true},
                                 {"warnings", json::array{"sample webhook warning one", "sample webhook warning two"}},
                                 {"auditAnnotations", json::object{{"checked", "yes"}}}});
  if (path == "/slow") return review_reply(review, {{"allowed", true}});
  if (path == "/garbage") return {200, "this is not json"};
  if (path == "/bad-patch") {
    json::array patch{json::object{{"op", "remove"}, {"path", "/metadata/labels/no-object-has-this-label"}}};
    return review_reply(review, {{"allowed", true},
                                 {"patchType", "JSONPatch"},
                                 {"patch", kapi::base::base64_encode(json::serialize(patch))}});
  }
  if (path == "/wrong-uid") return review_reply(review, {{"allowed", true}, {"uid", "not-the-request-uid"}});
  return {404, "{\"error\":\"no such webhook path\"}"};
}

// A TokenReview's answer: status.authenticated, user, error (tokens above).
Reply token_review_reply(const json::object& review) {
  const json::value* spec = review.if_contains("spec");
  const json::value* token = spec && spec->is_object() ? spec->as_object().if_contains("token") : nullptr;
  json::object status;
  if (token && *token == "alice-token") {
    status["authenticated"] = true;
    status["user"] = json::object{{"username", "alice"},
                                  {"uid", "42"},
                                  {"groups", json::array{"webhook-users"}},
                                  {"extra", json::object{{"team", json::array{"blue"}}}}};
  } else if (token && *token == "revoked-token") {
    status["authenticated"] = false;
    status["error"] = "token revoked";
  } else {
    status["authenticated"] = false;
  }
  json::object out{{"apiVersion", review.if_contains("apiVersion") ? review.at("apiVersion") : json::value("authentication.k8s.io/v1")},
                   {"kind", "TokenReview"},
                   {"status", std::move(status)}};
  return {200, json::serialize(out)};
}

// A SubjectAccessReview's answer (rules above).
Reply access_review_reply(const json::object& review) {
  const json::object empty;
  const json::value* spec_value = review.if_contains("spec");
  const json::object& spec = spec_value && spec_value->is_object() ? spec_value->as_object() : empty;
  const json::value* user = spec.if_contains("user");
  const json::value* attributes = spec.if_contains("resourceAttributes");
  const json::value* resource =
      attributes && attributes->is_object() ? attributes->as_object().if_contains("resource") : nullptr;
  json::object status{{"allowed", false}, {"reason", "no opinion on this"}};
  if (user && *user == "alice" && resource && *resource == "secrets")
    status = {{"allowed", false}, {"denied", true}, {"reason", "secrets are off limits for alice"}};
  else if (user && *user == "alice" && resource && *resource == "configmaps")
    status = {{"allowed", true}, {"reason", "alice may use configmaps"}};
  json::object out{{"apiVersion", review.if_contains("apiVersion") ? review.at("apiVersion") : json::value("authorization.k8s.io/v1")},
                   {"kind", "SubjectAccessReview"},
                   {"status", std::move(status)}};
  return {200, json::serialize(out)};
}

bool is_kind(const json::value& review, std::string_view kind) {
  const json::value* found = review.is_object() ? review.as_object().if_contains("kind") : nullptr;
  return found && found->is_string() && found->as_string() == kind;
}

class Handler {
 public:
  explicit Handler(const std::filesystem::path& log_path) {
    if (!log_path.empty()) log_.open(log_path, std::ios::app);
  }

  asio::awaitable<void> handle(kapi::http::Request& request, kapi::http::ResponseWriter& response) {
    Reply reply;
    json::value review;
    bool parsed = true;
    try {
      review = json::parse(request.body);
      parsed = review.is_object() && (review.as_object().if_contains("request") || is_kind(review, "TokenReview") ||
                                      is_kind(review, "SubjectAccessReview") || is_kind(review, "EventList"));
    } catch (const std::exception&) {
      parsed = false;
    }
    if (!parsed) {
      reply = {400, "{\"error\":\"the body is not an AdmissionReview, TokenReview or SubjectAccessReview\"}"};
    } else {
      if (log_.is_open()) {
        log_ << json::serialize(json::object{{"path", request.path},
                                             {"query", request.raw_query},
                                             {"remote", request.remote_address},
                                             {"review", review}})
             << std::endl;
      }
      if (request.path == "/slow" || request.path == "/authenticate-slow" || request.path == "/authorize-slow") {
        asio::steady_timer timer(co_await asio::this_coro::executor, 5s);
        co_await timer.async_wait(asio::use_awaitable);
      }
      if (is_kind(review, "EventList")) {
        reply = request.path == "/audit-fail" ? Reply{500, "{\"error\":\"the collector is down\"}"} : Reply{200, "{}"};
      } else if (is_kind(review, "TokenReview")) {
        reply = token_review_reply(review.as_object());
      } else if (is_kind(review, "SubjectAccessReview")) {
        const std::string seen = json::serialize(review.at("spec"));
        if (request.path == "/authorize-slow") {
          reply = {200, json::serialize(json::object{{"apiVersion", review.at("apiVersion")},
                                                     {"kind", "SubjectAccessReview"},
                                                     {"status", json::object{{"allowed", true}}}})};
        } else if (request.path == "/authorize-flaky" && flaky_seen_.insert(seen).second) {
          reply = {500, "{\"error\":\"flaky\"}"};
        } else {
          reply = access_review_reply(review.as_object());
        }
      } else {
        reply = answer(request.path, review);
      }
    }
    response.headers().set("Content-Type", "application/json");
    co_await response.write(reply.status, std::move(reply.body));
  }

 private:
  std::ofstream log_;
  std::set<std::string> flaky_seen_;  // the reviews /authorize-flaky failed once
};

}  // namespace

int main(int argc, char** argv) {
  std::signal(SIGPIPE, SIG_IGN);
  Flags flags;
  for (int i = 1; i < argc; ++i) {
    const std::string argument = argv[i];
    const std::size_t equals = argument.find('=');
    const std::string name = argument.substr(0, equals);
    const std::string value = equals == std::string::npos ? "" : argument.substr(equals + 1);
    if (name == "--secure-port") {
      flags.secure_port = std::stoi(value);
    } else if (name == "--cert-dir") {
      flags.cert_dir = value;
    } else if (name == "--server-name") {
      flags.server_names = {value};
    } else if (name == "--bind-address") {
      flags.bind_address = value;
    } else if (name == "--request-log") {
      flags.request_log = value;
    } else {
      std::cerr << "usage: kapi-sample-webhook [--secure-port=N] [--cert-dir=DIR] [--server-name=DNS] "
                   "[--request-log=FILE] [--bind-address=IP]\n";
      return 2;
    }
  }
  try {
    const auto serving = kapi::sample_apiserver::ensure_serving_pki(flags.cert_dir, flags.server_names);
    Handler handler(flags.request_log);
    asio::io_context io(1);
    kapi::http::HttpServer server(io, {}, [&handler](kapi::http::Request& request, kapi::http::ResponseWriter& response) {
      return handler.handle(request, response);
    });
    const auto bound = server.listen({asio::ip::make_address(flags.bind_address), static_cast<std::uint16_t>(flags.secure_port)},
                                     kapi::http::make_server_tls_context({serving.cert, serving.key, {}, {}}));
    kapi::sample_apiserver::serve_until_signalled(io, server, bound, "sample-webhook");
  } catch (const std::exception& error) {
    std::cerr << "kapi-sample-webhook: " << error.what() << std::endl;
    return 1;
  }
  return 0;
}
