#include "server/authorization/rbac/bootstrap_policy.h"

#include "server/authorization/rbac/policy_builder.h"

// The data of kube's bootstrappolicy.ClusterRoles and ClusterRoleBindings (policy.go, as its testdata golden
// files print them), in kube's order, the controllers' ones (controller_policy.cc) last as kube appends them.
namespace kapi::authorization::rbac {
namespace {

using namespace policy_builder;

constexpr std::string_view kAggregateTo = "rbac.authorization.k8s.io/aggregate-to-";

// A role labelled so that the aggregated role `into` (admin, edit or view) takes its rules.
json::object aggregate_to(std::string_view into) { return {{std::string(kAggregateTo) + std::string(into), "true"}}; }

// admin, edit and view: their rules are what the aggregation controller gathers from the labelled roles.
json::object aggregated_role(std::string_view name, json::object labels) {
  json::object role = cluster_role(name, {}, std::move(labels));
  json::object selector{{"matchLabels", aggregate_to(name)}};
  role["aggregationRule"] = json::object{{"clusterRoleSelectors", json::array{std::move(selector)}}};
  return role;
}

json::object signer_approver(std::string_view signer) {
  return cluster_role(std::string("system:certificates.k8s.io:") + std::string(signer.substr(signer.find('/') + 1)) +
                          "-approver",
                      {rule({"approve"}, {"certificates.k8s.io"}, {"signers"}, {signer})});
}

json::array aggregate_to_edit_rules() {
  return {
      rule(kRead, {""}, {"pods/attach", "pods/proxy", "pods/exec", "pods/portforward", "secrets", "services/proxy"}),
      rule({"impersonate"}, {""}, {"serviceaccounts"}),
      rule(kWrite, {""}, {"pods", "pods/attach", "pods/proxy", "pods/exec", "pods/portforward"}),
      rule({"create"}, {""}, {"pods/eviction"}),
      rule(kWrite, {""}, {"replicationcontrollers", "replicationcontrollers/scale", "serviceaccounts", "services",
                          "services/proxy", "persistentvolumeclaims", "configmaps", "secrets", "events"}),
      rule({"create"}, {""}, {"serviceaccounts/token"}),
      rule(kWrite, {"apps"}, {"statefulsets", "statefulsets/scale", "daemonsets", "deployments", "deployments/scale",
                              "deployments/rollback", "replicasets", "replicasets/scale"}),
      rule(kWrite, {"autoscaling"}, {"horizontalpodautoscalers"}),
      rule(kWrite, {"batch"}, {"jobs", "cronjobs"}),
      rule(kWrite, {"extensions"}, {"daemonsets", "deployments", "deployments/scale", "deployments/rollback",
                                    "ingresses", "replicasets", "replicasets/scale", "replicationcontrollers/scale",
                                    "networkpolicies"}),
      rule(kWrite, {"policy"}, {"poddisruptionbudgets"}),
      rule(kWrite, {"networking.k8s.io"}, {"ingresses", "networkpolicies"}),
      rule(kReadWrite, {"coordination.k8s.io"}, {"leases"}),
  };
}

json::array aggregate_to_view_rules() {
  return {
      rule(kRead, {""}, {"pods", "replicationcontrollers", "replicationcontrollers/scale", "serviceaccounts",
                         "services", "services/status", "endpoints", "persistentvolumeclaims",
                         "persistentvolumeclaims/status", "configmaps"}),
      rule(kRead, {""}, {"limitranges", "resourcequotas", "bindings", "events", "pods/status",
                         "resourcequotas/status", "namespaces/status", "replicationcontrollers/status", "pods/log"}),
      rule(kRead, {""}, {"namespaces"}),
      rule(kRead, {"discovery.k8s.io"}, {"endpointslices"}),
      rule(kRead, {"apps"}, {"controllerrevisions", "statefulsets", "statefulsets/status", "statefulsets/scale",
                             "daemonsets", "daemonsets/status", "deployments", "deployments/status",
                             "deployments/scale", "replicasets", "replicasets/status", "replicasets/scale"}),
      rule(kRead, {"autoscaling"}, {"horizontalpodautoscalers", "horizontalpodautoscalers/status"}),
      rule(kRead, {"batch"}, {"jobs", "cronjobs", "cronjobs/status", "jobs/status"}),
      rule(kRead, {"extensions"}, {"daemonsets", "daemonsets/status", "deployments", "deployments/scale",
                                   "deployments/status", "ingresses", "ingresses/status", "replicasets",
                                   "replicasets/scale", "replicasets/status", "replicationcontrollers/scale",
                                   "networkpolicies"}),
      rule(kRead, {"policy"}, {"poddisruptionbudgets", "poddisruptionbudgets/status"}),
      rule(kRead, {"networking.k8s.io"}, {"ingresses", "ingresses/status", "networkpolicies"}),
  };
}

json::array node_rules() {
  return {
      rule({"create"}, {"authentication.k8s.io"}, {"tokenreviews"}),
      rule({"create"}, {"authorization.k8s.io"}, {"subjectaccessreviews", "localsubjectaccessreviews"}),
      rule(kRead, {""}, {"services"}),
      rule({"create", "get", "list", "watch"}, {""}, {"nodes"}),
      rule({"update", "patch"}, {""}, {"nodes/status"}),
      rule({"update", "patch"}, {""}, {"nodes"}),
      rule(kEventWriters, {""}, {"events"}),
      rule(kRead, {""}, {"pods"}),
      rule({"create", "delete"}, {""}, {"pods"}),
      rule({"update", "patch"}, {""}, {"pods/status"}),
      rule({"create"}, {""}, {"pods/eviction"}),
      rule(kRead, {""}, {"secrets", "configmaps"}),
      rule({"get"}, {""}, {"persistentvolumeclaims", "persistentvolumes"}),
      rule({"get"}, {""}, {"endpoints"}),
      rule({"create", "get", "list", "watch"}, {"certificates.k8s.io"}, {"certificatesigningrequests"}),
      rule({"get", "create", "update", "patch", "delete"}, {"coordination.k8s.io"}, {"leases"}),
      rule({"get"}, {"storage.k8s.io"}, {"volumeattachments"}),
      rule({"create"}, {""}, {"serviceaccounts/token"}),
      rule({"get", "update", "patch"}, {""}, {"persistentvolumeclaims/status"}),
      rule(kRead, {"storage.k8s.io"}, {"csidrivers"}),
      rule({"get", "create", "update", "patch", "delete"}, {"storage.k8s.io"}, {"csinodes"}),
      rule(kRead, {"node.k8s.io"}, {"runtimeclasses"}),
  };
}

json::array kube_controller_manager_rules() {
  return {
      events_rule(),
      rule({"create"}, {"coordination.k8s.io"}, {"leases"}),
      rule({"get", "update"}, {"coordination.k8s.io"}, {"leases"}, {"kube-controller-manager"}),
      rule({"create"}, {""}, {"secrets", "serviceaccounts"}),
      rule({"delete"}, {""}, {"secrets"}),
      rule({"get"}, {""}, {"namespaces", "secrets", "serviceaccounts", "configmaps"}),
      rule({"update"}, {""}, {"secrets", "serviceaccounts"}),
      rule({"create"}, {"authentication.k8s.io"}, {"tokenreviews"}),
      rule({"create"}, {"authorization.k8s.io"}, {"subjectaccessreviews"}),
      rule({"list", "watch"}, {"*"}, {"*"}),
      rule({"create"}, {""}, {"serviceaccounts/token"}),
  };
}

json::array kube_scheduler_rules() {
  return {
      events_rule(),
      rule({"create"}, {"coordination.k8s.io"}, {"leases"}),
      rule({"get", "update"}, {"coordination.k8s.io"}, {"leases"}, {"kube-scheduler"}),
      rule(kRead, {""}, {"nodes"}),
      rule({"get", "list", "watch", "delete"}, {""}, {"pods"}),
      rule({"create"}, {""}, {"bindings", "pods/binding"}),
      rule({"patch", "update"}, {""}, {"pods/status"}),
      rule(kRead, {""}, {"replicationcontrollers", "services"}),
      rule(kRead, {"apps", "extensions"}, {"replicasets"}),
      rule(kRead, {"apps"}, {"statefulsets"}),
      rule(kRead, {"policy"}, {"poddisruptionbudgets"}),
      rule(kRead, {""}, {"persistentvolumeclaims", "persistentvolumes"}),
      rule({"create"}, {"authentication.k8s.io"}, {"tokenreviews"}),
      rule({"create"}, {"authorization.k8s.io"}, {"subjectaccessreviews"}),
      rule(kRead, {"storage.k8s.io"}, {"csinodes"}),
      rule(kRead, {""}, {"namespaces"}),
      rule(kRead, {"storage.k8s.io"}, {"csidrivers"}),
      rule(kRead, {"storage.k8s.io"}, {"csistoragecapacities"}),
  };
}

}  // namespace

std::vector<json::object> bootstrap_cluster_roles() {
  std::vector<json::object> roles{
      cluster_role("cluster-admin", {rule({"*"}, {"*"}, {"*"}), urls({"*"}, {"*"})}),
      cluster_role("system:discovery", {urls({"get"}, {"/api", "/api/*", "/apis", "/apis/*", "/healthz", "/livez",
                                                       "/openapi", "/openapi/*", "/readyz", "/version", "/version/"})}),
      cluster_role("system:monitoring", {urls({"get"}, {"/metrics", "/metrics/slis", "/livez", "/readyz", "/healthz",
                                                        "/livez/*", "/readyz/*", "/healthz/*"})}),
      cluster_role("system:basic-user",
                   {rule({"create"}, {"authorization.k8s.io"}, {"selfsubjectaccessreviews", "selfsubjectrulesreviews"}),
                    rule({"create"}, {"authentication.k8s.io"}, {"selfsubjectreviews"})}),
      cluster_role("system:public-info-viewer",
                   {urls({"get"}, {"/livez", "/readyz", "/healthz", "/version", "/version/"})}),
      aggregated_role("admin", {}),
      aggregated_role("edit", aggregate_to("admin")),
      aggregated_role("view", aggregate_to("edit")),
      cluster_role("system:aggregate-to-admin",
                   {rule({"create"}, {"authorization.k8s.io"}, {"localsubjectaccessreviews"}),
                    rule(kReadWrite, {"rbac.authorization.k8s.io"}, {"roles", "rolebindings"})},
                   aggregate_to("admin")),
      cluster_role("system:aggregate-to-edit", aggregate_to_edit_rules(), aggregate_to("edit")),
      cluster_role("system:aggregate-to-view", aggregate_to_view_rules(), aggregate_to("view")),
      cluster_role("system:heapster", {rule(kRead, {""}, {"events", "pods", "nodes", "namespaces"}),
                                       rule(kRead, {"extensions"}, {"deployments"})}),
      cluster_role("system:node", node_rules()),
      cluster_role("system:node-problem-detector",
                   {rule({"get"}, {""}, {"nodes"}), rule({"patch"}, {""}, {"nodes/status"}), events_rule()}),
      cluster_role("system:kubelet-api-admin",
                   {rule(kRead, {""}, {"nodes"}), rule({"proxy"}, {""}, {"nodes"}),
                    rule({"*"}, {""}, {"nodes/proxy", "nodes/metrics", "nodes/stats", "nodes/log"})}),
      cluster_role("system:node-bootstrapper",
                   {rule({"create", "get", "list", "watch"}, {"certificates.k8s.io"}, {"certificatesigningrequests"})}),
      cluster_role("system:auth-delegator", {rule({"create"}, {"authentication.k8s.io"}, {"tokenreviews"}),
                                             rule({"create"}, {"authorization.k8s.io"}, {"subjectaccessreviews"})}),
      cluster_role("system:kube-aggregator", {rule(kRead, {""}, {"services", "endpoints"})}),
      cluster_role("system:kube-controller-manager", kube_controller_manager_rules()),
      cluster_role("system:kube-dns", {rule({"list", "watch"}, {""}, {"endpoints", "services"})}),
      cluster_role("system:persistent-volume-provisioner",
                   {rule({"get", "list", "watch", "create", "delete"}, {""}, {"persistentvolumes"}),
                    rule({"get", "list", "watch", "update"}, {""}, {"persistentvolumeclaims"}),
                    rule(kRead, {"storage.k8s.io"}, {"storageclasses"}), rule({"watch"}, {""}, {"events"}),
                    events_rule()}),
      cluster_role("system:certificates.k8s.io:certificatesigningrequests:nodeclient",
                   {rule({"create"}, {"certificates.k8s.io"}, {"certificatesigningrequests/nodeclient"})}),
      cluster_role("system:certificates.k8s.io:certificatesigningrequests:selfnodeclient",
                   {rule({"create"}, {"certificates.k8s.io"}, {"certificatesigningrequests/selfnodeclient"})}),
      cluster_role("system:volume-scheduler",
                   {rule({"get", "list", "watch", "update", "patch"}, {""}, {"persistentvolumes"}),
                    rule(kRead, {"storage.k8s.io"}, {"storageclasses"}),
                    rule({"get", "list", "watch", "update", "patch"}, {""}, {"persistentvolumeclaims"})}),
      signer_approver("kubernetes.io/legacy-unknown"),
      signer_approver("kubernetes.io/kubelet-serving"),
      signer_approver("kubernetes.io/kube-apiserver-client"),
      signer_approver("kubernetes.io/kube-apiserver-client-kubelet"),
      cluster_role("system:service-account-issuer-discovery",
                   {urls({"get"}, {"/.well-known/openid-configuration", "/openid/v1/jwks"})}),
      cluster_role("system:node-proxier", {rule({"list", "watch"}, {""}, {"services", "endpoints"}),
                                           rule(kRead, {""}, {"nodes"}), events_rule(),
                                           rule({"list", "watch"}, {"discovery.k8s.io"}, {"endpointslices"})}),
      cluster_role("system:kube-scheduler", kube_scheduler_rules()),
  };
  for (auto& role : controller_cluster_roles()) roles.push_back(std::move(role));
  return roles;
}

std::vector<json::object> bootstrap_cluster_role_bindings() {
  std::vector<json::object> bindings{
      binding("cluster-admin", groups({"system:masters"})),
      binding("system:monitoring", groups({"system:monitoring"})),
      binding("system:discovery", groups({"system:authenticated"})),
      binding("system:basic-user", groups({"system:authenticated"})),
      binding("system:public-info-viewer", groups({"system:authenticated", "system:unauthenticated"})),
      binding("system:node-proxier", users({"system:kube-proxy"})),
      binding("system:kube-controller-manager", users({"system:kube-controller-manager"})),
      binding("system:kube-dns", {subject("ServiceAccount", "kube-dns", "kube-system")}),
      binding("system:kube-scheduler", users({"system:kube-scheduler"})),
      binding("system:volume-scheduler", users({"system:kube-scheduler"})),
      // Nodes get their rights from the Node authorizer in kube; the binding exists without subjects.
      binding("system:node", {}),
      binding("system:service-account-issuer-discovery", groups({"system:serviceaccounts"})),
  };
  for (auto& binding : controller_cluster_role_bindings()) bindings.push_back(std::move(binding));
  return bindings;
}

}  // namespace kapi::authorization::rbac
