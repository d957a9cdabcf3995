#include "server/controllers/cluster_role_aggregation.h"

#include "base/log.h"
#include "server/apierrors/errors.h"
#include "server/authorization/rbac/policy.h"
#include "server/registry/json_fields.h"
#include "server/registry/object_meta.h"
#include "server/registry/reflector.h"
#include "server/selectors/metav1_label_selector.h"

#include <boost/json.hpp>

#include <algorithm>
#include <chrono>

namespace kapi::controllers {
namespace {

namespace json = boost::json;
using authorization::rbac::rules_of;
using registry::fields::array_at;
using registry::fields::object_at;

std::optional<std::string_view> label_of(const json::object& role, std::string_view key) {
  const json::object* metadata = object_at(role, "metadata");
  const json::object* labels = metadata ? object_at(*metadata, "labels") : nullptr;
  const json::value* value = labels ? labels->if_contains(key) : nullptr;
  if (!value || !value->is_string()) return std::nullopt;
  return std::string_view(value->get_string());
}

}  // namespace

std::optional<json::array> aggregated_rules(const json::object& role,
                                            const std::map<std::string, json::object>& roles) {
  const json::object* rule = object_at(role, "aggregationRule");
  if (!rule) return std::nullopt;
  const std::string name(registry::meta_string(role, "name"));
  std::map<std::string, const json::object*> matched;  // by name: kube aggregates in name order
  if (const json::array* selectors = array_at(rule, "clusterRoleSelectors")) {
    for (const auto& item : *selectors) {
      if (!item.is_object()) return std::nullopt;
      auto selector = selectors::label_selector_from_metav1(item.get_object());
      if (!selector) return std::nullopt;
      for (const auto& [other_name, other] : roles) {
        if (other_name == name) continue;  // no self-aggregation
        if (selector->matches([&other](std::string_view key) { return label_of(other, key); }))
          matched.emplace(other_name, &other);
      }
    }
  }
  json::array rules;
  std::vector<authorization::rbac::PolicyRule> seen;
  for (const auto& [other_name, other] : matched) {
    const json::array* other_rules = array_at(other, "rules");
    if (!other_rules) continue;
    const std::vector<authorization::rbac::PolicyRule> parsed = rules_of(*other);
    for (std::size_t i = 0; i < parsed.size() && i < other_rules->size(); ++i) {
      if (std::find(seen.begin(), seen.end(), parsed[i]) != seen.end()) continue;
      seen.push_back(parsed[i]);
      rules.push_back((*other_rules)[i]);
    }
  }
  return rules;
}

ClusterRoleAggregationController::ClusterRoleAggregationController(registry::Store& cluster_roles,
                                                                   base::Logger& logger,
                                                                   std::shared_ptr<const base::StopSignal> stopping)
    : cluster_roles_(cluster_roles), logger_(logger), stopping_(std::move(stopping)) {}

// Synced after the whole list, so that the first sync sees every role (a role aggregated before its sources
// arrive would be written with too few rules); then after each change.
asio::awaitable<void> ClusterRoleAggregationController::run() {
  registry::ReflectorHandlers handlers;
  handlers.replace = [this](std::vector<json::object> roles, storage::Revision) -> asio::awaitable<void> {
    roles_.clear();
    for (auto& role : roles) {
      std::string name(registry::meta_string(role, "name"));
      roles_.emplace(std::move(name), std::move(role));
    }
    co_await sync();
  };
  handlers.apply = [this](const storage::WatchEvent& event, json::object role) -> asio::awaitable<void> {
    std::string name(registry::meta_string(role, "name"));
    if (event.type == storage::WatchEventType::Deleted) roles_.erase(name);
    else roles_[std::move(name)] = std::move(role);
    co_await sync();
  };
  registry::ReflectorOptions options{"the cluster roles to aggregate", std::chrono::seconds(1)};
  auto following = registry::reflect(cluster_roles_, std::move(handlers), std::move(options), stopping_, logger_);
  co_await std::move(following);
}

asio::awaitable<void> ClusterRoleAggregationController::sync() {
  for (const auto& [name, role] : roles_) {
    std::optional<json::array> rules = aggregated_rules(role, roles_);
    if (!rules) continue;
    const json::array* stored = array_at(&role, "rules");
    if (stored ? *stored == *rules : rules->empty()) continue;
    registry::UpdateFunction update = [&rules](const json::object* current) -> json::object {
      if (!current) throw apierrors::ApiError(apierrors::not_found("rbac.authorization.k8s.io", "clusterroles", ""));
      json::object role = *current;
      role["rules"] = *rules;
      return role;
    };
    try {
      auto pending = cluster_roles_.update("", name, std::move(update), registry::WriteOptions{});
      co_await std::move(pending);
    } catch (const apierrors::ApiError& error) {
      // Gone meanwhile, or refused: the watch brings the next state, and with it the next attempt.
      logger_.warning("clusterrole aggregation: updating " + name + ": " + error.status().message);
    }
  }
}

}  // namespace kapi::controllers
