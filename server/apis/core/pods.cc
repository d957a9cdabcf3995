// core/v1 Pod (pkg/registry/core/pod): created Pending with its QoS class, defaulted as kube's code defaults it,
// validated by ValidatePod/ValidatePodUpdate, selectable by kube's pod fields, printed as printPod prints it.
// Generation is not tracked (kube's pods have none); status has its own subresource.
#include "server/apis/core/core_validation.h"
#include "server/apis/core/pod_defaults.h"
#include "server/apis/core/pod_deletion.h"
#include "server/apis/core/connect.h"
#include "server/apis/core/pod_subresources.h"
#include "server/apis/core/pod_validation.h"
#include "server/apis/resource_storage.h"
#include "server/registry/json_fields.h"
#include "server/registry/object_meta.h"

#include <map>

namespace kapi::apis {
namespace {

using namespace registry::fields;

bool is_restartable_init_container(const json::object* container) {
  return container && string_at(*container, "restartPolicy") == "Always";
}

bool condition_is_true(const json::object* status, std::string_view type) {
  bool result = false;
  bool seen = false;
  for_each_object(status, "conditions", [&](const json::object& condition, std::size_t) {
    if (seen || string_at(condition, "type") != type) return;
    seen = true;
    result = string_at(condition, "status") == "True";
  });
  return result;
}

// The later of `latest` and a container's last termination time (RFC 3339 strings compare in time order).
void note_restart(const json::object& container_status, std::string& latest) {
  const json::object* last_state = object_at(container_status, "lastState");
  const json::object* terminated = last_state ? object_at(*last_state, "terminated") : nullptr;
  if (!terminated) return;
  const std::string_view finished = string_at(*terminated, "finishedAt");
  if (core::parse_time(finished) > core::parse_time(latest)) latest = std::string(finished);
}

const json::object* state_of(const json::object& container_status, std::string_view state) {
  const json::object* states = object_at(container_status, "state");
  return states ? object_at(*states, state) : nullptr;
}

std::string terminated_reason(const json::object& terminated, std::string_view prefix) {
  if (auto reason = string_at(terminated, "reason"); !reason.empty()) return std::string(prefix) + std::string(reason);
  if (auto signal = int_or_zero(&terminated, "signal"); signal != 0)
    return std::string(prefix) + "Signal:" + std::to_string(signal);
  return std::string(prefix) + "ExitCode:" + std::to_string(int_or_zero(&terminated, "exitCode"));
}

// printPod (pkg/printers/internalversion/printers.go), as kube-apiserver runs it: always wide.
json::array pod_cells(const json::object& pod) {
  static const json::object kEmpty;
  const json::object* spec_ptr = object_at(pod, "spec");
  const json::object* status_ptr = object_at(pod, "status");
  const json::object& spec = spec_ptr ? *spec_ptr : kEmpty;
  const json::object& status = status_ptr ? *status_ptr : kEmpty;

  const json::array* containers = array_at(spec, "containers");
  std::int64_t total = containers ? static_cast<std::int64_t>(containers->size()) : 0;
  std::int64_t ready = 0;
  std::int64_t restarts = 0;
  std::int64_t restartable_init_restarts = 0;
  std::string last_restart;
  std::string last_restartable_init_restart;

  const std::string_view phase = string_at(status, "phase");
  std::string reason(phase);
  if (auto status_reason = string_at(status, "reason"); !status_reason.empty()) reason = std::string(status_reason);
  for_each_object(&status, "conditions", [&](const json::object& condition, std::size_t) {
    if (string_at(condition, "type") == "PodScheduled" && string_at(condition, "reason") == "SchedulingGated")
      reason = "SchedulingGated";
  });

  std::map<std::string, const json::object*, std::less<>> init_containers;
  const json::array* init_specs = array_at(spec, "initContainers");
  for_each_object(&spec, "initContainers", [&](const json::object& container, std::size_t) {
    init_containers[std::string(string_at(container, "name"))] = &container;
    if (is_restartable_init_container(&container)) ++total;
  });
  const std::size_t init_count = init_specs ? init_specs->size() : 0;

  bool initializing = false;
  if (const json::array* init_statuses = array_at(status, "initContainerStatuses")) {
    for (std::size_t i = 0; i < init_statuses->size(); ++i) {
      if (!(*init_statuses)[i].is_object()) continue;
      const json::object& container = (*init_statuses)[i].as_object();
      restarts += int_or_zero(&container, "restartCount");
      note_restart(container, last_restart);
      auto spec_it = init_containers.find(string_at(container, "name"));
      const bool restartable =
          spec_it != init_containers.end() && is_restartable_init_container(spec_it->second);
      if (restartable) {
        restartable_init_restarts += int_or_zero(&container, "restartCount");
        note_restart(container, last_restartable_init_restart);
      }
      const json::object* terminated = state_of(container, "terminated");
      const json::object* waiting = state_of(container, "waiting");
      if (terminated && int_or_zero(terminated, "exitCode") == 0) continue;
      if (restartable && bool_at(&container, "started")) {
        if (bool_at(&container, "ready")) ++ready;
        continue;
      }
      if (terminated) {
        reason = terminated_reason(*terminated, "Init:");
      } else if (waiting && !string_at(*waiting, "reason").empty() &&
                 string_at(*waiting, "reason") != "PodInitializing") {
        reason = "Init:" + std::string(string_at(*waiting, "reason"));
      } else {
        reason = "Init:" + std::to_string(i) + "/" + std::to_string(init_count);
      }
      initializing = true;
      break;
    }
  }

  if (!initializing || condition_is_true(&status, "Initialized")) {
    restarts = restartable_init_restarts;
    last_restart = last_restartable_init_restart;
    bool has_running = false;
    if (const json::array* statuses = array_at(status, "containerStatuses")) {
      for (std::size_t n = statuses->size(); n-- > 0;) {
        if (!(*statuses)[n].is_object()) continue;
        const json::object& container = (*statuses)[n].as_object();
        restarts += int_or_zero(&container, "restartCount");
        note_restart(container, last_restart);
        const json::object* waiting = state_of(container, "waiting");
        const json::object* terminated = state_of(container, "terminated");
        if (waiting && !string_at(*waiting, "reason").empty()) {
          reason = std::string(string_at(*waiting, "reason"));
        } else if (terminated) {
          reason = terminated_reason(*terminated, "");
        } else if (bool_at(&container, "ready") && state_of(container, "running")) {
          has_running = true;
          ++ready;
        }
      }
    }
    if (reason == "Completed" && has_running) reason = condition_is_true(&status, "Ready") ? "Running" : "NotReady";
  }

  if (!registry::meta_string(pod, "deletionTimestamp").empty()) {
    if (string_at(status, "reason") == "NodeLost") reason = "Unknown";
    else if (phase != "Succeeded" && phase != "Failed") reason = "Terminating";
  }

  std::string restarts_cell = std::to_string(restarts);
  if (restarts != 0 && !last_restart.empty())
    restarts_cell += " (" + core::since(last_restart) + " ago)";

  std::string pod_ip;
  for_each_object(&status, "podIPs", [&](const json::object& ip, std::size_t i) {
    if (i == 0) pod_ip = std::string(string_at(ip, "ip"));
  });
  auto or_none = [](std::string_view value) { return value.empty() ? std::string("<none>") : std::string(value); };
  std::string readiness_gates = "<none>";
  if (const json::array* gates = array_at(spec, "readinessGates"); gates && !gates->empty()) {
    std::int64_t true_conditions = 0;
    for_each_object(&spec, "readinessGates", [&](const json::object& gate, std::size_t) {
      if (condition_is_true(&status, string_at(gate, "conditionType"))) ++true_conditions;
    });
    readiness_gates = std::to_string(true_conditions) + "/" + std::to_string(gates->size());
  }
  return {json::string(registry::meta_string(pod, "name")),
          json::string(std::to_string(ready) + "/" + std::to_string(total)),
          json::string(reason),
          json::string(restarts_cell),
          json::string(registry::age_of(pod)),
          json::string(or_none(pod_ip)),
          json::string(or_none(string_at(spec, "nodeName"))),
          json::string(or_none(string_at(status, "nominatedNodeName"))),
          json::string(readiness_gates)};
}

class PodStrategy final : public registry::Strategy {
 public:
  // kube's store for this kind has ReturnDeletedObject: a DELETE answers with the object, not a Status.
  bool return_deleted_object() const override { return true; }
  PodStrategy(core::DisruptionBudgetStore budgets, std::shared_ptr<const core::ConnectConfig> connect)
      : budgets_(std::move(budgets)), connect_(std::move(connect)) {}
  void apply_scheme_defaults(json::object& object) const override { core::apply_pod_defaults(object); }
  void prepare_for_create(json::object& pod) const override {
    core::apply_pod_defaults(pod);
    pod["status"] = core::initial_pod_status(pod);
  }
  void prepare_for_update(json::object& pod, const json::object& old) const override {
    keep_status(pod, old);
    core::apply_pod_defaults(pod);
  }
  std::optional<std::int64_t> graceful_deletion_period(const json::object& pod,
                                                      std::optional<std::int64_t> requested) const override {
    return core::pod_deletion_grace_period(pod, requested);
  }
  std::vector<registry::CreateSubresource> create_subresources() const override {
    return core::pod_create_subresources(budgets_);
  }
  std::vector<registry::ConnectSubresource> connect_subresources() const override {
    return core::pod_connect_subresources(connect_);
  }
  validation::ErrorList validate(const json::object& pod) const override { return core::validate_pod(pod); }
  validation::ErrorList validate_update(const json::object& pod, const json::object& old) const override {
    validation::ErrorList errors = core::validate_pod(pod);
    core::append(errors, core::validate_pod_update(pod, old));
    return errors;
  }
  // podStatusStrategy.GetResetFields: kubelets' status writes own neither the spec nor these.
  std::optional<std::vector<std::vector<std::string>>> reset_fields(std::string_view subresource) const override {
    if (subresource == "status")
      return std::vector<std::vector<std::string>>{
          {"spec"}, {"metadata", "deletionTimestamp"}, {"metadata", "ownerReferences"}};
    return std::vector<std::vector<std::string>>{{"status"}};
  }
  // pods/ephemeralcontainers (podEphemeralContainersStrategy): its handler keeps everything but the list; the new
  // containers take the code defaults kube's decoding gives them, and ValidatePodEphemeralContainersUpdate applies.
  void prepare_for_subresource_update(std::string_view subresource, json::object& pod,
                                      const json::object& /*old*/) const override {
    if (subresource == "ephemeralcontainers") core::apply_pod_defaults(pod);
  }
  validation::ErrorList validate_subresource_update(std::string_view subresource, const json::object& pod,
                                                    const json::object& old) const override {
    if (subresource != "ephemeralcontainers") return validate_update(pod, old);
    validation::ErrorList errors = core::validate_pod(pod);
    core::append(errors, core::validate_ephemeral_containers_update(pod, old));
    return errors;
  }

  std::vector<std::string> selectable_field_names() const override {
    return {"spec.nodeName",     "spec.restartPolicy", "spec.schedulerName",        "spec.serviceAccountName",
            "spec.hostNetwork",  "status.phase",       "status.podIP",              "status.nominatedNodeName"};
  }
  void selectable_fields(const json::object& pod, registry::SelectableFields& fields) const override {
    const json::object* spec = object_at(pod, "spec");
    const json::object* status = object_at(pod, "status");
    fields["spec.nodeName"] = string_at(spec, "nodeName");
    fields["spec.restartPolicy"] = string_at(spec, "restartPolicy");
    fields["spec.schedulerName"] = string_at(spec, "schedulerName");
    fields["spec.serviceAccountName"] = string_at(spec, "serviceAccountName");
    fields["spec.hostNetwork"] = bool_at(spec, "hostNetwork") ? "true" : "false";
    fields["status.phase"] = string_at(status, "phase");
    std::string pod_ip;
    for_each_object(status, "podIPs", [&](const json::object& ip, std::size_t i) {
      if (i == 0) pod_ip = std::string(string_at(ip, "ip"));
    });
    fields["status.podIP"] = pod_ip;
    fields["status.nominatedNodeName"] = string_at(status, "nominatedNodeName");
  }

  std::vector<registry::TableColumn> table_columns() const override {
    return {registry::name_column(),
            {"Ready", "string", "", "The aggregate readiness state of this pod for accepting traffic.", 0},
            {"Status", "string", "", "The aggregate status of the containers in this pod.", 0},
            {"Restarts", "string", "",
             "The number of times the containers in this pod have been restarted and when the last container in "
             "this pod has restarted.",
             0},
            registry::age_column(),
            {"IP", "string", "",
             "podIP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.",
             1},
            {"Node", "string", "",
             "NodeName indicates in which node this pod is scheduled. If empty, this pod is a candidate for "
             "scheduling by the scheduler defined in schedulerName. Once this field is set, the kubelet for this "
             "node becomes responsible for the lifecycle of this pod. This field should not be used to express a "
             "desire for the pod to be scheduled on a specific node. "
             "https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/#nodename",
             1},
            {"Nominated Node", "string", "",
             "nominatedNodeName is set only when this pod preempts other pods on the node, but it cannot be "
             "scheduled right away as preemption victims receive their graceful termination periods. This field "
             "does not guarantee that the pod will be scheduled on this node. Scheduler may decide to place the pod "
             "elsewhere if other nodes become available sooner. Scheduler may also decide to give the resources on "
             "this node to a higher priority pod that is created after preemption. As a result, this field may be "
             "different than PodSpec.nodeName when the pod is scheduled.",
             1},
            {"Readiness Gates", "string", "",
             "If specified, all readiness gates will be evaluated for pod readiness. A pod is ready when all its "
             "containers are ready AND all conditions specified in the readiness gates have status equal to "
             "\"True\" More info: https://git.k8s.io/enhancements/keps/sig-network/580-pod-readiness-gates",
             1}};
  }
  json::array table_cells(const json::object& pod) const override { return pod_cells(pod); }
  // kube's podSuccessConditions and podFailedConditions.
  json::array table_row_conditions(const json::object& pod) const override {
    const std::string_view phase = string_at(object_at(pod, "status"), "phase");
    if (phase != "Succeeded" && phase != "Failed") return {};
    const bool succeeded = phase == "Succeeded";
    return {json::object{{"type", "Completed"},
                         {"status", "True"},
                         {"reason", phase},
                         {"message", succeeded ? "The pod has completed successfully." : "The pod failed."}}};
  }

 private:
  core::DisruptionBudgetStore budgets_;
  std::shared_ptr<const core::ConnectConfig> connect_;
};

}  // namespace

ResourceStorage pods(core::DisruptionBudgetStore budgets, std::shared_ptr<const core::ConnectConfig> connect) {
  registry::ResourceDefinition definition{.group = "",
                                          .version = "v1",
                                          .resource = "pods",
                                          .kind = "Pod",
                                          .singular = "pod",
                                          .namespaced = true,
                                          .short_names = {"po"},
                                          .categories = {"all"},
                                          .storage_resource = "pods",
                                          .subresources = {"attach", "binding", "ephemeralcontainers", "eviction", "exec",
                                                           "log", "portforward", "proxy", "status"}};
  return {std::move(definition), std::make_shared<PodStrategy>(std::move(budgets), std::move(connect))};
}

}  // namespace kapi::apis
