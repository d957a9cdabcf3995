// `kubectl api-resources -o wide` on kapi, row for row against kube-apiserver 1.32's with default flags (the 58
// resources it serves, their short names, preferred group version, scope, kind, verbs and categories, in
// discovery order), and the legacy and aggregated discovery documents it is read from.
#include "tests/integration/kapi_suite.h"
#include "tests/integration/kubectl_runner.h"

#include <filesystem>
#include <sstream>

namespace kapi::integration::api_resources_test {
namespace {

constexpr const char* kAll = "create,delete,deletecollection,get,list,patch,update,watch";

struct Row {
  std::string name, short_names, api_version, namespaced, kind, verbs, categories;
};

std::string text(const Row& row) {
  return row.name + " | " + row.short_names + " | " + row.api_version + " | " + row.namespaced + " | " + row.kind +
         " | " + row.verbs + " | " + row.categories;
}

// kube-apiserver 1.32's list, as kubectl 1.32 prints it.
std::vector<Row> kube_rows() {
  return {
      {"bindings", "", "v1", "true", "Binding", "create", ""},
      {"componentstatuses", "cs", "v1", "false", "ComponentStatus", "get,list", ""},
      {"configmaps", "cm", "v1", "true", "ConfigMap", kAll, ""},
      {"endpoints", "ep", "v1", "true", "Endpoints", kAll, ""},
      {"events", "ev", "v1", "true", "Event", kAll, ""},
      {"limitranges", "limits", "v1", "true", "LimitRange", kAll, ""},
      {"namespaces", "ns", "v1", "false", "Namespace", "create,delete,get,list,patch,update,watch", ""},
      {"nodes", "no", "v1", "false", "Node", kAll, ""},
      {"persistentvolumeclaims", "pvc", "v1", "true", "PersistentVolumeClaim", kAll, ""},
      {"persistentvolumes", "pv", "v1", "false", "PersistentVolume", kAll, ""},
      {"pods", "po", "v1", "true", "Pod", kAll, "all"},
      {"podtemplates", "", "v1", "true", "PodTemplate", kAll, ""},
      {"replicationcontrollers", "rc", "v1", "true", "ReplicationController", kAll, "all"},
      {"resourcequotas", "quota", "v1", "true", "ResourceQuota", kAll, ""},
      {"secrets", "", "v1", "true", "Secret", kAll, ""},
      {"serviceaccounts", "sa", "v1", "true", "ServiceAccount", kAll, ""},
      {"services", "svc", "v1", "true", "Service", kAll, "all"},
      {"mutatingwebhookconfigurations", "", "admissionregistration.k8s.io/v1", "false", "MutatingWebhookConfiguration",
       kAll, "api-extensions"},
      {"validatingadmissionpolicies", "", "admissionregistration.k8s.io/v1", "false", "ValidatingAdmissionPolicy", kAll,
       "api-extensions"},
      {"validatingadmissionpolicybindings", "", "admissionregistration.k8s.io/v1", "false",
       "ValidatingAdmissionPolicyBinding", kAll, "api-extensions"},
      {"validatingwebhookconfigurations", "", "admissionregistration.k8s.io/v1", "false",
       "ValidatingWebhookConfiguration", kAll, "api-extensions"},
      {"customresourcedefinitions", "crd,crds", "apiextensions.k8s.io/v1", "false", "CustomResourceDefinition", kAll,
       "api-extensions"},
      {"apiservices", "", "apiregistration.k8s.io/v1", "false", "APIService", kAll, "api-extensions"},
      {"controllerrevisions", "", "apps/v1", "true", "ControllerRevision", kAll, ""},
      {"daemonsets", "ds", "apps/v1", "true", "DaemonSet", kAll, "all"},
      {"deployments", "deploy", "apps/v1", "true", "Deployment", kAll, "all"},
      {"replicasets", "rs", "apps/v1", "true", "ReplicaSet", kAll, "all"},
      {"statefulsets", "sts", "apps/v1", "true", "StatefulSet", kAll, "all"},
      {"selfsubjectreviews", "", "authentication.k8s.io/v1", "false", "SelfSubjectReview", "create", ""},
      {"tokenreviews", "", "authentication.k8s.io/v1", "false", "TokenReview", "create", ""},
      {"localsubjectaccessreviews", "", "authorization.k8s.io/v1", "true", "LocalSubjectAccessReview", "create", ""},
      {"selfsubjectaccessreviews", "", "authorization.k8s.io/v1", "false", "SelfSubjectAccessReview", "create", ""},
      {"selfsubjectrulesreviews", "", "authorization.k8s.io/v1", "false", "SelfSubjectRulesReview", "create", ""},
      {"subjectaccessreviews", "", "authorization.k8s.io/v1", "false", "SubjectAccessReview", "create", ""},
      {"horizontalpodautoscalers", "hpa", "autoscaling/v2", "true", "HorizontalPodAutoscaler", kAll, "all"},
      {"cronjobs", "cj", "batch/v1", "true", "CronJob", kAll, "all"},
      {"jobs", "", "batch/v1", "true", "Job", kAll, "all"},
      {"certificatesigningrequests", "csr", "certificates.k8s.io/v1", "false", "CertificateSigningRequest", kAll, ""},
      {"leases", "", "coordination.k8s.io/v1", "true", "Lease", kAll, ""},
      {"endpointslices", "", "discovery.k8s.io/v1", "true", "EndpointSlice", kAll, ""},
      {"events", "ev", "events.k8s.io/v1", "true", "Event", kAll, ""},
      {"flowschemas", "", "flowcontrol.apiserver.k8s.io/v1", "false", "FlowSchema", kAll, ""},
      {"prioritylevelconfigurations", "", "flowcontrol.apiserver.k8s.io/v1", "false", "PriorityLevelConfiguration",
       kAll, ""},
      {"ingressclasses", "", "networking.k8s.io/v1", "false", "IngressClass", kAll, ""},
      {"ingresses", "ing", "networking.k8s.io/v1", "true", "Ingress", kAll, ""},
      {"networkpolicies", "netpol", "networking.k8s.io/v1", "true", "NetworkPolicy", kAll, ""},
      {"runtimeclasses", "", "node.k8s.io/v1", "false", "RuntimeClass", kAll, ""},
      {"poddisruptionbudgets", "pdb", "policy/v1", "true", "PodDisruptionBudget", kAll, ""},
      {"clusterrolebindings", "", "rbac.authorization.k8s.io/v1", "false", "ClusterRoleBinding", kAll, ""},
      {"clusterroles", "", "rbac.authorization.k8s.io/v1", "false", "ClusterRole", kAll, ""},
      {"rolebindings", "", "rbac.authorization.k8s.io/v1", "true", "RoleBinding", kAll, ""},
      {"roles", "", "rbac.authorization.k8s.io/v1", "true", "Role", kAll, ""},
      {"priorityclasses", "pc", "scheduling.k8s.io/v1", "false", "PriorityClass", kAll, ""},
      {"csidrivers", "", "storage.k8s.io/v1", "false", "CSIDriver", kAll, ""},
      {"csinodes", "", "storage.k8s.io/v1", "false", "CSINode", kAll, ""},
      {"csistoragecapacities", "", "storage.k8s.io/v1", "true", "CSIStorageCapacity", kAll, ""},
      {"storageclasses", "sc", "storage.k8s.io/v1", "false", "StorageClass", kAll, ""},
      {"volumeattachments", "", "storage.k8s.io/v1", "false", "VolumeAttachment", kAll, ""},
  };
}

// The rows of kubectl's table, cut at the header's column starts (an empty SHORTNAMES cell is blanks).
std::vector<Row> parse_table(const std::string& table) {
  std::istringstream lines(table);
  std::string header;
  std::getline(lines, header);
  std::vector<std::size_t> starts;
  for (const char* column : {"NAME", "SHORTNAMES", "APIVERSION", "NAMESPACED", "KIND", "VERBS", "CATEGORIES"})
    starts.push_back(header.find(column));
  auto cell = [&](const std::string& line, std::size_t i) {
    if (starts[i] >= line.size()) return std::string();
    std::string value = line.substr(starts[i], i + 1 < starts.size() ? starts[i + 1] - starts[i] : std::string::npos);
    value.erase(value.find_last_not_of(' ') + 1);
    return value;
  };
  std::vector<Row> rows;
  for (std::string line; std::getline(lines, line);)
    rows.push_back({cell(line, 0), cell(line, 1), cell(line, 2), cell(line, 3), cell(line, 4), cell(line, 5), cell(line, 6)});
  return rows;
}

class ApiResourcesTest : public KapiSuite<ApiResourcesTest> {
 protected:
  CommandResult kubectl(const std::string& arguments) { return run_kubectl(kapi(), arguments); }
};

TEST_F(ApiResourcesTest, KubectlListsKubesResourcesRowForRow) {
  CommandResult listed = kubectl("api-resources -o wide");
  ASSERT_EQ(listed.exit_code, 0) << listed.output;
  std::string want, got;
  for (const auto& row : kube_rows()) want += text(row) + "\n";
  for (const auto& row : parse_table(listed.output)) got += text(row) + "\n";
  EXPECT_EQ(got, want);
}

}  // namespace
}  // namespace kapi::integration::api_resources_test
