#include "server/authorization/rbac/bootstrap_policy.h"

#include "server/authorization/rbac/policy_builder.h"

// The data of kube's controller_policy.go (testdata/controller-roles.yaml and controller-role-bindings.yaml) for
// the controllers kube 1.32 runs by default: the roles behind feature gates that are off by default there
// (resource claims, service CIDRs, volume attributes classes, cluster trust bundles, storage versions, SELinux
// warnings) are left out, as kube leaves them out.
namespace kapi::authorization::rbac {
namespace {

using namespace policy_builder;

constexpr std::string_view kRolePrefix = "system:controller:";

struct ControllerRole {
  std::string_view controller;  // also the name of its ServiceAccount in kube-system
  json::array rules;
};

std::vector<ControllerRole> controller_roles() {
  const Words apps_extensions = {"apps", "extensions"};
  return {
      {"attachdetach-controller",
       {rule({"list", "watch"}, {""}, {"persistentvolumes", "persistentvolumeclaims"}), rule(kRead, {""}, {"nodes"}),
        rule({"patch", "update"}, {""}, {"nodes/status"}), rule({"list", "watch"}, {""}, {"pods"}), events_rule(),
        rule({"get", "create", "delete", "list", "watch"}, {"storage.k8s.io"}, {"volumeattachments"}),
        rule(kRead, {"storage.k8s.io"}, {"csidrivers"}), rule(kRead, {"storage.k8s.io"}, {"csinodes"})}},
      {"clusterrole-aggregation-controller",
       // it must be able to write any rule into a ClusterRole, hence escalate
       {rule({"escalate", "get", "list", "watch", "update", "patch"}, {"rbac.authorization.k8s.io"}, {"clusterroles"})}},
      {"cronjob-controller",
       {rule({"get", "list", "watch", "update"}, {"batch"}, {"cronjobs"}),
        rule({"get", "list", "watch", "create", "update", "delete", "patch"}, {"batch"}, {"jobs"}),
        rule({"update"}, {"batch"}, {"cronjobs/status"}), rule({"update"}, {"batch"}, {"cronjobs/finalizers"}),
        rule({"list", "watch", "delete"}, {""}, {"pods"}), events_rule()}},
      {"daemon-set-controller",
       {rule(kRead, apps_extensions, {"daemonsets"}), rule({"update"}, apps_extensions, {"daemonsets/status"}),
        rule({"update"}, apps_extensions, {"daemonsets/finalizers"}), rule({"list", "watch"}, {""}, {"nodes"}),
        rule({"list", "watch", "create", "delete", "patch"}, {""}, {"pods"}),
        rule({"create"}, {""}, {"pods/binding"}),
        rule({"get", "list", "watch", "create", "delete", "update", "patch"}, {"apps"}, {"controllerrevisions"}),
        events_rule()}},
      {"deployment-controller",
       {rule({"get", "list", "watch", "update"}, apps_extensions, {"deployments"}),
        rule({"update"}, apps_extensions, {"deployments/status"}),
        rule({"update"}, apps_extensions, {"deployments/finalizers"}),
        rule({"get", "list", "watch", "create", "update", "patch", "delete"}, apps_extensions, {"replicasets"}),
        rule({"get", "list", "watch", "update"}, {""}, {"pods"}), events_rule()}},
      {"disruption-controller",
       {rule(kRead, apps_extensions, {"deployments"}), rule(kRead, apps_extensions, {"replicasets"}),
        rule(kRead, {""}, {"replicationcontrollers"}), rule(kRead, {"policy"}, {"poddisruptionbudgets"}),
        rule(kRead, {"apps"}, {"statefulsets"}), rule({"update"}, {"policy"}, {"poddisruptionbudgets/status"}),
        rule({"patch", "update"}, {""}, {"pods/status"}), rule({"get"}, {"*"}, {"*/scale"}), events_rule()}},
      {"endpoint-controller",
       {rule(kRead, {""}, {"services", "pods"}),
        rule({"get", "list", "watch", "create", "update", "delete"}, {""}, {"endpoints"}),
        rule({"create"}, {""}, {"endpoints/restricted"}), events_rule()}},
      {"endpointslice-controller",
       {rule(kRead, {""}, {"services", "pods", "nodes"}),
        // owner references with blockOwnerDeletion need the right to set the service's finalizers
        rule({"update"}, {""}, {"services/finalizers"}),
        rule({"get", "list", "watch", "create", "update", "delete"}, {"discovery.k8s.io"}, {"endpointslices"}),
        events_rule()}},
      {"endpointslicemirroring-controller",
       {rule(kRead, {""}, {"services", "endpoints"}), rule({"update"}, {""}, {"services/finalizers"}),
        rule({"update"}, {""}, {"endpoints/finalizers"}),
        rule({"get", "list", "watch", "create", "update", "delete"}, {"discovery.k8s.io"}, {"endpointslices"}),
        events_rule()}},
      {"expand-controller",
       {rule({"get", "list", "watch", "update", "patch"}, {""}, {"persistentvolumes"}),
        rule({"update", "patch"}, {""}, {"persistentvolumeclaims/status"}),
        rule(kRead, {""}, {"persistentvolumeclaims"}), events_rule(), rule({"get"}, {""}, {"services"})}},
      {"ephemeral-volume-controller",
       {rule(kRead, {""}, {"pods"}), rule({"update"}, {""}, {"pods/finalizers"}),
        rule({"get", "list", "watch", "create"}, {""}, {"persistentvolumeclaims"}), events_rule()}},
      {"generic-garbage-collector",
       {rule({"get", "list", "watch", "patch", "update", "delete"}, {"*"}, {"*"}), events_rule()}},
      {"horizontal-pod-autoscaler",
       {rule(kRead, {"autoscaling"}, {"horizontalpodautoscalers"}),
        rule({"update"}, {"autoscaling"}, {"horizontalpodautoscalers/status"}),
        rule({"get", "update"}, {"*"}, {"*/scale"}), rule({"list", "watch"}, {""}, {"pods"}),
        rule({"list", "watch"}, {"metrics.k8s.io"}, {"pods"}), rule(kRead, {"custom.metrics.k8s.io"}, {"*"}),
        rule(kRead, {"external.metrics.k8s.io"}, {"*"}), events_rule()}},
      {"job-controller",
       {rule({"get", "list", "watch", "update", "patch"}, {"batch"}, {"jobs"}),
        rule({"update"}, {"batch"}, {"jobs/status"}), rule({"update"}, {"batch"}, {"jobs/finalizers"}),
        rule({"list", "watch", "create", "delete", "patch"}, {""}, {"pods"}), events_rule()}},
      {"namespace-controller",
       {rule({"get", "list", "watch", "delete"}, {""}, {"namespaces"}),
        rule({"update"}, {""}, {"namespaces/finalize", "namespaces/status"}),
        rule({"get", "list", "watch", "delete", "deletecollection"}, {"*"}, {"*"})}},
      {"node-controller",
       {rule({"get", "list", "watch", "update", "delete", "patch"}, {""}, {"nodes"}),
        rule({"patch", "update"}, {""}, {"nodes/status"}), rule({"patch", "update"}, {""}, {"pods/status"}),
        rule({"list", "watch", "get", "delete"}, {""}, {"pods"}), events_rule()}},
      {"persistent-volume-binder",
       {rule({"get", "list", "watch", "update", "create", "delete"}, {""}, {"persistentvolumes"}),
        rule({"update"}, {""}, {"persistentvolumes/status"}),
        rule({"get", "list", "watch", "update"}, {""}, {"persistentvolumeclaims"}),
        rule({"update"}, {""}, {"persistentvolumeclaims/status"}),
        rule({"list", "watch", "get", "create", "delete"}, {""}, {"pods"}),
        rule(kRead, {"storage.k8s.io"}, {"storageclasses"}), rule({"list", "watch"}, {""}, {"nodes"}), events_rule(),
        rule({"watch"}, {""}, {"events"}), rule({"get"}, {""}, {"services"})}},
      {"pod-garbage-collector",
       {rule({"list", "watch", "delete"}, {""}, {"pods"}), rule(kRead, {""}, {"nodes"}),
        rule({"patch"}, {""}, {"pods/status"})}},
      {"replicaset-controller",
       {rule({"get", "list", "watch", "update"}, apps_extensions, {"replicasets"}),
        rule({"update"}, apps_extensions, {"replicasets/status"}),
        rule({"update"}, apps_extensions, {"replicasets/finalizers"}),
        rule({"list", "watch", "patch", "create", "delete"}, {""}, {"pods"}), events_rule()}},
      {"replication-controller",
       {rule({"get", "list", "watch", "update"}, {""}, {"replicationcontrollers"}),
        rule({"update"}, {""}, {"replicationcontrollers/status"}),
        rule({"update"}, {""}, {"replicationcontrollers/finalizers"}),
        rule({"list", "watch", "patch", "create", "delete"}, {""}, {"pods"}), events_rule()}},
      {"resourcequota-controller",
       // quota may count anything
       {rule({"list", "watch"}, {"*"}, {"*"}), rule({"update"}, {""}, {"resourcequotas/status"}), events_rule()}},
      {"route-controller",
       {rule({"list", "watch"}, {""}, {"nodes"}), rule({"patch"}, {""}, {"nodes/status"}), events_rule()}},
      {"service-account-controller", {rule({"create"}, {""}, {"serviceaccounts"}), events_rule()}},
      {"service-controller",
       {rule(kRead, {""}, {"services"}), rule({"patch", "update"}, {""}, {"services/status"}),
        rule({"list", "watch"}, {""}, {"nodes"}), events_rule()}},
      {"statefulset-controller",
       {rule({"list", "watch"}, {""}, {"pods"}), rule(kRead, {"apps"}, {"statefulsets"}),
        rule({"update"}, {"apps"}, {"statefulsets/status"}), rule({"update"}, {"apps"}, {"statefulsets/finalizers"}),
        rule({"get", "create", "delete", "update", "patch"}, {""}, {"pods"}),
        rule({"get", "create", "delete", "update", "patch", "list", "watch"}, {"apps"}, {"controllerrevisions"}),
        rule({"get", "create", "list", "watch"}, {""}, {"persistentvolumeclaims"}),
        rule({"update", "delete"}, {""}, {"persistentvolumeclaims"}), rule({"update"}, {""}, {"pods/finalizers"}),
        events_rule()}},
      {"ttl-controller", {rule({"update", "patch", "list", "watch"}, {""}, {"nodes"}), events_rule()}},
      {"certificate-controller",
       {rule({"get", "list", "watch", "delete"}, {"certificates.k8s.io"}, {"certificatesigningrequests"}),
        rule({"update"}, {"certificates.k8s.io"},
             {"certificatesigningrequests/status", "certificatesigningrequests/approval"}),
        rule({"approve"}, {"certificates.k8s.io"}, {"signers"}, {"kubernetes.io/kube-apiserver-client-kubelet"}),
        rule({"sign"}, {"certificates.k8s.io"}, {"signers"},
             {"kubernetes.io/legacy-unknown", "kubernetes.io/kube-apiserver-client",
              "kubernetes.io/kube-apiserver-client-kubelet", "kubernetes.io/kubelet-serving"}),
        rule({"create"}, {"authorization.k8s.io"}, {"subjectaccessreviews"}), events_rule()}},
      {"pvc-protection-controller",
       {rule({"get", "list", "watch", "update"}, {""}, {"persistentvolumeclaims"}),
        rule({"list", "watch", "get"}, {""}, {"pods"}), events_rule()}},
      {"pv-protection-controller",
       {rule({"get", "list", "watch", "update"}, {""}, {"persistentvolumes"}), events_rule()}},
      {"ttl-after-finished-controller",
       {rule({"get", "list", "watch", "delete"}, {"batch"}, {"jobs"}), events_rule()}},
      {"root-ca-cert-publisher", {rule({"create", "update"}, {""}, {"configmaps"}), events_rule()}},
      {"validatingadmissionpolicy-status-controller",
       {rule(kRead, {"admissionregistration.k8s.io"}, {"validatingadmissionpolicies"}),
        rule({"get", "patch", "update"}, {"admissionregistration.k8s.io"}, {"validatingadmissionpolicies/status"}),
        events_rule()}},
      {"legacy-service-account-token-cleaner",
       {rule({"get"}, {""}, {"configmaps"}, {"kube-apiserver-legacy-service-account-token-tracking"}),
        rule({"patch", "delete"}, {""}, {"secrets"})}},
  };
}

std::string role_name(std::string_view controller) { return std::string(kRolePrefix) + std::string(controller); }

}  // namespace

std::vector<json::object> controller_cluster_roles() {
  std::vector<json::object> roles;
  for (auto& controller : controller_roles())
    roles.push_back(cluster_role(role_name(controller.controller), std::move(controller.rules)));
  return roles;
}

std::vector<json::object> controller_cluster_role_bindings() {
  std::vector<json::object> bindings;
  for (const auto& controller : controller_roles())
    bindings.push_back(
        binding(role_name(controller.controller), service_accounts("kube-system", {controller.controller})));
  return bindings;
}

}  // namespace kapi::authorization::rbac
