#include "server/metrics/authorization.h"

namespace kapi::metrics {

AuthorizationFamilies::AuthorizationFamilies()
    : decisions("apiserver_authorization_decisions_total",
                "[ALPHA] Total number of terminal decisions made by an authorizer split by authorizer type, name, and "
                "decision.",
                {"decision", "name", "type"}),
      webhook_evaluations("apiserver_authorization_webhook_evaluations_total",
                          "[ALPHA] Round-trips to authorization webhooks.", {"name", "result"}),
      webhook_duration("apiserver_authorization_webhook_duration_seconds", "[ALPHA] Request latency in seconds.",
                       {"name", "result"}, {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}),
      webhook_fail_open("apiserver_authorization_webhook_evaluations_fail_open_total",
                        "[ALPHA] NoOpinion results due to webhook timeout or error.", {"name", "result"}),
      match_condition_errors("apiserver_authorization_match_condition_evaluation_errors_total",
                             "[ALPHA] Total number of errors when an authorization webhook encounters a match "
                             "condition error split by authorizer type and name.",
                             {"name", "type"}),
      match_condition_exclusions("apiserver_authorization_match_condition_exclusions_total",
                                 "[ALPHA] Total number of exclusions when an authorization webhook is skipped because "
                                 "match conditions exclude it.",
                                 {"name", "type"}),
      match_condition_duration("apiserver_authorization_match_condition_evaluation_seconds",
                               "[ALPHA] Authorization match condition evaluation time in seconds, split by authorizer "
                               "type and name.",
                               {"name", "type"}, {0.001, 0.005, 0.01, 0.025, 0.1, 0.2, 0.25}),
      config_reloads("apiserver_authorization_config_controller_automatic_reloads_total",
                     "[ALPHA] Total number of automatic reloads of authorization configuration split by status and "
                     "apiserver identity.",
                     {"apiserver_id_hash", "status"}),
      config_reload_timestamp("apiserver_authorization_config_controller_automatic_reload_last_timestamp_seconds",
                              "[ALPHA] Timestamp of the last automatic reload of authorization configuration split by "
                              "status and apiserver identity.",
                              {"apiserver_id_hash", "status"}) {}

void AuthorizationFamilies::render(std::string& out) const {
  decisions.render(out);
  webhook_evaluations.render(out);
  webhook_duration.render(out);
  webhook_fail_open.render(out);
  match_condition_errors.render(out);
  match_condition_exclusions.render(out);
  match_condition_duration.render(out);
  config_reloads.render(out);
  config_reload_timestamp.render(out);
}

}  // namespace kapi::metrics
