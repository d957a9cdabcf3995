#include "server/authorization/rbac/bootstrap_policy.h"

#include "server/apierrors/errors.h"
#include "server/registry/object_meta.h"

#include <boost/json.hpp>

#include <algorithm>
#include <charconv>

namespace kapi::authorization::rbac {
namespace {

namespace json = boost::json;

storage::Revision stored_revision(std::string_view stored) {
  storage::Revision revision = 0;
  if (auto object = registry::parse_json_object(stored)) {
    std::string_view text = registry::meta_string(*object, "resourceVersion");
    std::from_chars(text.data(), text.data() + text.size(), revision);
  }
  return revision;
}

json::object bootstrap_metadata(std::string_view name) {
  return {{"name", name},
          {"labels", json::object{{"kubernetes.io/bootstrapping", "rbac-defaults"}}},
          {"annotations", json::object{{"rbac.authorization.kubernetes.io/autoupdate", "true"}}}};
}

json::object cluster_role(std::string_view name, json::array rules) {
  return {{"kind", "ClusterRole"},
          {"apiVersion", "rbac.authorization.k8s.io/v1"},
          {"metadata", bootstrap_metadata(name)},
          {"rules", std::move(rules)}};
}

json::object binding(std::string_view role, std::vector<std::string_view> groups) {
  json::array subjects;
  for (auto group : groups)
    subjects.push_back(json::object{{"kind", "Group"}, {"apiGroup", "rbac.authorization.k8s.io"}, {"name", group}});
  return {{"kind", "ClusterRoleBinding"},
          {"apiVersion", "rbac.authorization.k8s.io/v1"},
          {"metadata", bootstrap_metadata(role)},
          {"roleRef", json::object{{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "ClusterRole"}, {"name", role}}},
          {"subjects", std::move(subjects)}};
}

json::object urls(std::vector<std::string_view> paths) {
  json::array list;
  for (auto path : paths) list.emplace_back(path);
  return {{"verbs", json::array{"get"}}, {"nonResourceURLs", std::move(list)}};
}

}  // namespace

std::vector<json::object> bootstrap_cluster_roles() {
  return {
      cluster_role("cluster-admin",
                   json::array{json::object{{"verbs", json::array{"*"}}, {"apiGroups", json::array{"*"}},
                                            {"resources", json::array{"*"}}},
                               json::object{{"verbs", json::array{"*"}}, {"nonResourceURLs", json::array{"*"}}}}),
      cluster_role("system:discovery", json::array{urls({"/api", "/api/*", "/apis", "/apis/*", "/healthz", "/livez",
                                                         "/openapi", "/openapi/*", "/readyz", "/version", "/version/"})}),
      cluster_role("system:basic-user",
                   json::array{json::object{{"verbs", json::array{"create"}},
                                            {"apiGroups", json::array{"authentication.k8s.io"}},
                                            {"resources", json::array{"selfsubjectreviews"}}},
                               json::object{{"verbs", json::array{"create"}},
                                            {"apiGroups", json::array{"authorization.k8s.io"}},
                                            {"resources", json::array{"selfsubjectaccessreviews", "selfsubjectrulesreviews"}}}}),
      cluster_role("system:public-info-viewer",
                   json::array{urls({"/healthz", "/livez", "/readyz", "/version", "/version/"})}),
  };
}

std::vector<json::object> bootstrap_cluster_role_bindings() {
  return {
      binding("cluster-admin", {"system:masters"}),
      binding("system:discovery", {"system:authenticated"}),
      binding("system:basic-user", {"system:authenticated"}),
      binding("system:public-info-viewer", {"system:authenticated", "system:unauthenticated"}),
  };
}

asio::awaitable<BootstrapRevisions> ensure_bootstrap_policy(registry::Store& cluster_roles,
                                                            registry::Store& cluster_role_bindings) {
  BootstrapRevisions revisions;
  for (auto* store : {&cluster_roles, &cluster_role_bindings}) {
    const bool roles = store == &cluster_roles;
    storage::Revision& revision = roles ? revisions.cluster_roles : revisions.cluster_role_bindings;
    for (json::object& object : roles ? bootstrap_cluster_roles() : bootstrap_cluster_role_bindings()) {
      std::string name(registry::meta_string(object, "name"));
      std::string stored;
      bool exists = false;
      try {
        registry::WriteOptions options;
        stored = co_await store->create("", std::move(object), options);
      } catch (const apierrors::ApiError& error) {
        if (error.status().code != 409) throw;  // already there: its owner's version stands
        exists = true;
      }
      if (exists) stored = (co_await store->get("", name, "")).json;
      revision = std::max(revision, stored_revision(stored));
    }
  }
  co_return revisions;
}

}  // namespace kapi::authorization::rbac
