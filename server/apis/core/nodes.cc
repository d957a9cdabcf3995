// core/v1 Node (pkg/registry/core/node): cluster-scoped, stored under "minions" as kube has always kept them,
// status settable on create (the kubelet registers with it) and then through its subresource; validated by
// ValidateNode/ValidateNodeUpdate (taints, pod CIDRs and providerID set once); printed as printNode prints it.
#include "base/name_validation.h"
#include "server/apis/core/connect.h"
#include "server/apis/core/core_validation.h"
#include "server/apis/resource_storage.h"
#include "server/registry/json_fields.h"
#include "server/registry/object_meta.h"

#include <set>

namespace kapi::apis {
namespace {

using namespace registry::fields;
using validation::ErrorList;
using validation::Path;

bool is_cidr(std::string_view text) {
  const auto slash = text.find('/');
  if (slash == std::string_view::npos) return false;
  const std::string_view address = text.substr(0, slash);
  const std::string_view bits = text.substr(slash + 1);
  if (bits.empty() || bits.size() > 3 || bits.find_first_not_of("0123456789") != std::string_view::npos) return false;
  const int prefix = std::stoi(std::string(bits));
  if (core::is_ipv4(address)) return prefix <= 32;
  return core::is_ip(address) && prefix <= 128;
}

// The v1 podCIDR is podCIDRs[0] (the conversion keeps the two in step).
void sync_pod_cidrs(json::object& node) {
  json::object& spec = ensure_object(node, "spec");
  const json::array* cidrs = array_at(spec, "podCIDRs");
  const std::string_view cidr = string_at(spec, "podCIDR");
  if ((!cidrs || cidrs->empty()) && !cidr.empty()) spec["podCIDRs"] = json::array{json::string(cidr)};
  else if (cidrs && !cidrs->empty() && cidr.empty() && (*cidrs)[0].is_string()) spec["podCIDR"] = (*cidrs)[0];
}

// validateNodeTaints. kube reports them under metadata.taints (its path starts from metadata), and so does kapi.
void validate_taints(const json::object* spec, ErrorList& errors) {
  const Path path = Path("metadata").child("taints");
  std::set<std::pair<std::string, std::string>> seen;
  for_each_object(spec, "taints", [&](const json::object& taint, std::size_t i) {
    const Path at = path.index(i);
    const std::string_view key = string_at(taint, "key");
    const std::string_view effect = string_at(taint, "effect");
    for (auto& message : validation::is_qualified_name(key)) errors.push_back(validation::invalid(at.child("key"), key, message));
    auto value_errors = validation::is_valid_label_value(string_at(taint, "value"));
    std::string joined;
    for (const auto& message : value_errors) joined += (joined.empty() ? "" : ";") + message;
    if (!value_errors.empty()) errors.push_back(validation::invalid(at.child("value"), string_at(taint, "value"), joined));
    if (effect.empty()) errors.push_back(validation::required(at.child("effect")));
    else if (effect != "NoSchedule" && effect != "PreferNoSchedule" && effect != "NoExecute")
      errors.push_back(validation::not_supported(at.child("effect"), effect, {"NoSchedule", "PreferNoSchedule", "NoExecute"}));
    if (!seen.emplace(std::string(effect), std::string(key)).second)
      errors.push_back({validation::ErrorType::Duplicate, at.str(),
                        "core.Taint{Key:" + validation::quoted(key) + ", Value:" +
                            validation::quoted(string_at(taint, "value")) + ", Effect:" + validation::quoted(effect) +
                            ", TimeAdded:(*v1.Time)(nil)}",
                        "taints must be unique by key and effect pair"});
  });
}

ErrorList validate_node(const json::object& node) {
  ErrorList errors;
  const json::object* spec = object_at(node, "spec");
  validate_taints(spec, errors);
  const json::array* cidrs = spec ? array_at(*spec, "podCIDRs") : nullptr;
  if (cidrs && !cidrs->empty()) {
    const Path path = Path("spec").child("podCIDRs");
    for (std::size_t i = 0; i < cidrs->size(); ++i)
      if (!(*cidrs)[i].is_string() || !is_cidr((*cidrs)[i].as_string()))
        errors.push_back(validation::invalid_value(path.index(i), go_string_slice(cidrs), "must be valid CIDR"));
    if (cidrs->size() > 1) {
      auto is_v4 = [](const json::value& cidr) {
        if (!cidr.is_string()) return false;
        const std::string_view text = cidr.as_string();
        return core::is_ipv4(text.substr(0, text.find('/')));
      };
      if (cidrs->size() > 2 || is_v4((*cidrs)[0]) == is_v4((*cidrs)[1]))
        errors.push_back(validation::invalid_value(path, go_string_slice(cidrs), "may specify no more than one CIDR for each IP family"));
    }
  }
  return errors;
}

ErrorList validate_node_update(const json::object& node, const json::object& old) {
  ErrorList errors;
  const json::object* spec = object_at(node, "spec");
  const json::object* old_spec = object_at(old, "spec");
  const json::array* old_cidrs = old_spec ? array_at(*old_spec, "podCIDRs") : nullptr;
  const json::array* cidrs = spec ? array_at(*spec, "podCIDRs") : nullptr;
  if (old_cidrs && !old_cidrs->empty()) {
    const bool same = cidrs && *cidrs == *old_cidrs;
    if (!same)
      errors.push_back(validation::forbidden(Path("spec").child("podCIDRs"),
                                             "node updates may not change podCIDR except from \"\" to valid"));
  }
  const std::string_view old_provider = string_at(old_spec, "providerID");
  if (!old_provider.empty() && old_provider != string_at(spec, "providerID"))
    errors.push_back(validation::forbidden(Path("spec").child("providerID"),
                                           "node updates may not change providerID except from \"\" to valid"));
  if (string_at(old_spec, "externalID") != string_at(spec, "externalID"))
    errors.push_back(validation::forbidden(Path("spec").child("externalID"), "may not be updated"));
  const json::object* status = object_at(node, "status");
  std::set<std::pair<std::string, std::string>> addresses;
  for_each_object(status, "addresses", [&](const json::object& address, std::size_t i) {
    const std::string type(string_at(address, "type"));
    const std::string value(string_at(address, "address"));
    if (!addresses.emplace(type, value).second)
      errors.push_back({validation::ErrorType::Duplicate, Path("status").child("addresses").index(i).str(),
                        "core.NodeAddress{Type:\"" + type + "\", Address:\"" + value + "\"}", ""});
  });
  return errors;
}

std::string address_of(const json::object* status, std::string_view type) {
  std::string found;
  for_each_object(status, "addresses", [&](const json::object& address, std::size_t) {
    if (found.empty() && string_at(address, "type") == type) found = std::string(string_at(address, "address"));
  });
  return found.empty() ? "<none>" : found;
}

class NodeStrategy final : public registry::Strategy {
 public:
  explicit NodeStrategy(std::shared_ptr<const core::ConnectConfig> connect) : connect_(std::move(connect)) {}
  std::vector<registry::ConnectSubresource> connect_subresources() const override {
    return {core::node_proxy(connect_)};
  }
  void prepare_for_create(json::object& node) const override {
    // Dynamic kubelet configuration is gone: what it set is dropped on create.
    ensure_object(node, "spec").erase("configSource");
    if (json::object* status = object_at(node, "status")) status->erase("config");
    sync_pod_cidrs(node);
  }
  void prepare_for_update(json::object& node, const json::object& old) const override {
    keep_status(node, old);
    const json::object* old_spec = object_at(old, "spec");
    if (!old_spec || !has(*old_spec, "configSource")) ensure_object(node, "spec").erase("configSource");
    sync_pod_cidrs(node);
  }
  ErrorList validate(const json::object& node) const override { return validate_node(node); }
  ErrorList validate_update(const json::object& node, const json::object& old) const override {
    ErrorList errors = validate_node(node);
    core::append(errors, validate_node_update(node, old));
    return errors;
  }

  std::vector<std::string> selectable_field_names() const override { return {"spec.unschedulable"}; }
  void selectable_fields(const json::object& node, registry::SelectableFields& fields) const override {
    fields["spec.unschedulable"] = bool_at(object_at(node, "spec"), "unschedulable") ? "true" : "false";
  }

  std::vector<registry::TableColumn> table_columns() const override {
    const char kAddresses[] =
        "List of addresses reachable to the node. Queried from cloud provider, if available. More info: "
        "https://kubernetes.io/docs/reference/node/node-status/#addresses Note: This field is declared as mergeable, "
        "but the merge key is not sufficiently unique, which can cause data corruption when it is merged. Callers "
        "should instead use a full-replacement patch. See https://pr.k8s.io/79391 for an example. Consumers should "
        "assume that addresses can change during the lifetime of a Node. However, there are some exceptions where "
        "this may not be possible, such as Pods that inherit a Node's address in its own status or consumers of "
        "the downward API (status.hostIP).";
    return {registry::name_column(),
            {"Status", "string", "", "The status of the node", 0},
            {"Roles", "string", "", "The roles of the node", 0},
            registry::age_column(),
            {"Version", "string", "", "Kubelet Version reported by the node.", 0},
            {"Internal-IP", "string", "", kAddresses, 1},
            {"External-IP", "string", "", kAddresses, 1},
            {"OS-Image", "string", "", "OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).", 1},
            {"Kernel-Version", "string", "", "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).", 1},
            {"Container-Runtime", "string", "",
             "ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2).", 1}};
  }
  json::array table_cells(const json::object& node) const override {
    const json::object* spec = object_at(node, "spec");
    const json::object* status = object_at(node, "status");
    std::string state;
    for_each_object(status, "conditions", [&](const json::object& condition, std::size_t) {
      if (string_at(condition, "type") == "Ready") state = string_at(condition, "status") == "True" ? "Ready" : "NotReady";
    });
    if (state.empty()) state = "Unknown";
    if (bool_at(spec, "unschedulable")) state += ",SchedulingDisabled";
    // findNodeRoles: node-role.kubernetes.io/<role> labels and the kubernetes.io/role label, sorted.
    std::set<std::string> roles;
    if (const json::object* meta = object_at(node, "metadata"))
      if (const json::object* labels = object_at(*meta, "labels"))
        for (const auto& [key, value] : *labels) {
          constexpr std::string_view kPrefix = "node-role.kubernetes.io/";
          if (key.starts_with(kPrefix) && key.size() > kPrefix.size()) roles.emplace(key.substr(kPrefix.size()));
          else if (key == "kubernetes.io/role" && value.is_string() && !value.as_string().empty())
            roles.emplace(value.as_string());
        }
    std::string role_cell;
    for (const auto& role : roles) role_cell += (role_cell.empty() ? "" : ",") + role;
    const json::object* info = status ? object_at(*status, "nodeInfo") : nullptr;
    auto or_unknown = [&](std::string_view key) {
      const std::string_view value = string_at(info, key);
      return json::string(value.empty() ? "<unknown>" : value);
    };
    return {json::string(registry::meta_string(node, "name")),
            json::string(state),
            json::string(role_cell.empty() ? "<none>" : role_cell),
            json::string(registry::age_of(node)),
            json::string(string_at(info, "kubeletVersion")),
            json::string(address_of(status, "InternalIP")),
            json::string(address_of(status, "ExternalIP")),
            or_unknown("osImage"),
            or_unknown("kernelVersion"),
            or_unknown("containerRuntimeVersion")};
  }

 private:
  std::shared_ptr<const core::ConnectConfig> connect_;
};

}  // namespace

ResourceStorage nodes(std::shared_ptr<const core::ConnectConfig> connect) {
  registry::ResourceDefinition definition{.group = "",
                                          .version = "v1",
                                          .resource = "nodes",
                                          .kind = "Node",
                                          .singular = "node",
                                          .namespaced = false,
                                          .short_names = {"no"},
                                          .storage_resource = "minions",
                                          .subresources = {"proxy", "status"}};
  return {std::move(definition), std::make_shared<NodeStrategy>(std::move(connect))};
}

}  // namespace kapi::apis
