#pragma once
// WithLatencyTrackers plus the request metrics: when a request is done, record apiserver_request_total and
// apiserver_request_duration_seconds (kube-apiserver's labels), and each stage's own time in
// apiserver_request_filter_duration_seconds.
#include "filters/filter.h"
#include "server/metrics/registry.h"

#include <cctype>

namespace kapi::filters {

// The `verb` label as k8s.io/apiserver/pkg/endpoints/metrics reports it (CleanVerb of the canonical verb).
inline std::string reported_verb(const http::Request& request, const RequestInfo& info) {
  if (info.is_resource_request) {
    if (info.verb == "list") return "LIST";
    if (info.verb == "watch") return "WATCH";
    if (info.verb == "get") return "GET";
    if (info.verb == "create") return "POST";
    if (info.verb == "update") return "PUT";
    if (info.verb == "delete" || info.verb == "deletecollection") return "DELETE";
    if (info.verb == "patch") {
      auto type = request.headers.get("Content-Type");
      return type && type->starts_with("application/apply-patch") ? "APPLY" : "PATCH";
    }
  }
  std::string verb = request.method;
  for (char& c : verb) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return verb;
}

class LatencyTrackerFilter final : public Filter {
 public:
  explicit LatencyTrackerFilter(metrics::Registry& metrics) : metrics_(metrics) {}
  std::string_view name() const override { return "latency-tracker"; }

  asio::awaitable<void> handle(Exchange& exchange, Next next) override {
    struct Record {
      Exchange& exchange;
      metrics::Registry& metrics;
      ~Record() {
        const auto& context = exchange.context;
        if (!context.request_info) return;
        const RequestInfo& info = *context.request_info;
        std::string verb = reported_verb(exchange.request, info);
        std::string scope(info.scope());
        std::string code = std::to_string(exchange.response->status() ? exchange.response->status() : 500);
        std::string dry_run = exchange.request.query.has("dryRun") ? "All" : "";
        metrics.request_total.inc({code, "apiserver", dry_run, info.api_group, info.resource, scope,
                                   info.subresource, verb, info.api_version});
        if (verb != "WATCH" && verb != "CONNECT") {
          double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - context.received_steady).count();
          metrics.request_duration.observe({"apiserver", dry_run, info.api_group, info.resource, scope,
                                            info.subresource, verb, info.api_version},
                                           seconds);
        }
        // The stages kube-apiserver reports in apiserver_request_filter_duration_seconds.
        for (const auto& [filter, elapsed] : context.filter_latencies)
          if (filter == "authentication" || filter == "authorization" || filter == "audit" ||
              filter == "impersonation" || filter == "max-in-flight")
            metrics.filter_duration.observe({std::string(filter)}, std::chrono::duration<double>(elapsed).count());
      }
    } record{exchange, metrics_};
    co_await next(exchange);
    // A watch is counted when it ends, as kube counts it: this is the first stage with work after a response
    // ends, so the stream a long-running handler handed off runs here, and the stages after this one are gone.
    if (exchange.handed_off.valid()) {
      auto rest = request::take_handed_off(exchange);
      co_await std::move(rest);
    }
  }

 private:
  metrics::Registry& metrics_;
};

}  // namespace kapi::filters
