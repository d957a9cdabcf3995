// Priority (kube's plugin/pkg/admission/priority/admission.go, release-1.32): a new pod's spec.priority and
// spec.preemptionPolicy come from the PriorityClass it names, else from the globalDefault class, else 0 and
// PreemptLowerPriority; a pod that names a missing class, or states a priority or policy the class does not
// give, is refused; an update keeps what create set. At most one PriorityClass is the globalDefault.
#include "server/admission/errors.h"
#include "server/admission/plugin.h"
#include "server/plugin/admission/object_lookup.h"
#include "server/registry/json_fields.h"
#include "server/registry/object_meta.h"

#include <optional>

namespace kapi::admission {
namespace {

using namespace registry::fields;
using registry::meta_string;

struct ResolvedPriority {
  std::string class_name;
  std::int64_t value = 0;
  std::optional<std::string> preemption_policy;
};

std::optional<std::string> preemption_policy_of(const json::object& object) {
  auto policy = object.find("preemptionPolicy");
  if (policy == object.end() || !policy->value().is_string()) return std::nullopt;
  return std::string(policy->value().as_string());
}

class Priority final : public Plugin {
 public:
  explicit Priority(registry::Store* priority_classes) : priority_classes_(priority_classes) {}

  bool handles(const Attributes& attributes) const override {
    if (!attributes.subresource.empty() || !attributes.object) return false;
    if (attributes.operation != Operation::Create && attributes.operation != Operation::Update) return false;
    return is_resource(attributes, "", "pods") || is_resource(attributes, "scheduling.k8s.io", "priorityclasses");
  }
  bool mutates() const override { return true; }
  bool validates() const override { return true; }

  asio::awaitable<void> admit(Attributes& attributes) override {
    if (!is_resource(attributes, "", "pods")) co_return;
    json::object& spec = ensure_object(*attributes.object, "spec");
    if (attributes.operation == Operation::Update) {
      if (!attributes.old_object) co_return;
      // Create set these; validation refuses changing them, so an update that leaves them out keeps them.
      const json::object& old_spec = object_or_empty(*attributes.old_object, "spec");
      for (std::string_view field : {"priority", "preemptionPolicy"})
        if (!has(spec, field) && has(old_spec, field)) spec[field] = old_spec.at(field);
      co_return;
    }
    ResolvedPriority resolved;
    const std::string class_name(string_at(spec, "priorityClassName"));
    if (class_name.empty()) {
      std::optional<json::object> default_class = co_await global_default_class();
      if (default_class) {
        resolved = {std::string(meta_string(*default_class, "name")), int_or_zero(&*default_class, "value"),
                    preemption_policy_of(*default_class)};
      } else {
        resolved.preemption_policy = "PreemptLowerPriority";
      }
      if (resolved.class_name.empty()) spec.erase("priorityClassName");
      else spec["priorityClassName"] = resolved.class_name;
    } else {
      std::optional<json::object> priority_class = co_await find_object(*priority_classes_, "", class_name);
      if (!priority_class) throw forbidden(attributes, "no PriorityClass with name " + class_name + " was found");
      resolved = {class_name, int_or_zero(&*priority_class, "value"), preemption_policy_of(*priority_class)};
    }
    if (std::optional<std::int64_t> stated = int_at(spec, "priority"); stated && *stated != resolved.value)
      throw forbidden(attributes, "the integer value of priority (" + std::to_string(*stated) +
                                      ") must not be provided in pod spec; priority admission controller computed " +
                                      std::to_string(resolved.value) + " from the given PriorityClass name");
    spec["priority"] = resolved.value;
    if (resolved.preemption_policy) {
      if (std::optional<std::string> stated = preemption_policy_of(spec);
          stated && *stated != *resolved.preemption_policy)
        throw forbidden(attributes, "the string value of PreemptionPolicy (" + *stated +
                                        ") must not be provided in pod spec; priority admission controller computed " +
                                        *resolved.preemption_policy + " from the given PriorityClass name");
      spec["preemptionPolicy"] = *resolved.preemption_policy;
    }
  }

  asio::awaitable<void> validate(const Attributes& attributes) override {
    if (!is_resource(attributes, "scheduling.k8s.io", "priorityclasses")) co_return;
    const json::object& priority_class = *attributes.object;
    if (!bool_at(priority_class, "globalDefault")) co_return;
    std::optional<json::object> default_class = co_await global_default_class();
    if (!default_class) co_return;
    const std::string default_name(meta_string(*default_class, "name"));
    if (attributes.operation == Operation::Create || default_name != meta_string(priority_class, "name"))
      throw forbidden(attributes, "PriorityClass " + default_name + " is already marked as default. Only one default can exist");
  }

 private:
  // getDefaultPriorityClass: should a race have made two, the one with the lowest value.
  asio::awaitable<std::optional<json::object>> global_default_class() {
    std::vector<json::object> classes = co_await list_objects(*priority_classes_, "");
    std::optional<json::object> chosen;
    for (json::object& priority_class : classes) {
      if (!bool_at(priority_class, "globalDefault")) continue;
      if (!chosen || int_or_zero(&*chosen, "value") > int_or_zero(&priority_class, "value"))
        chosen = std::move(priority_class);
    }
    co_return chosen;
  }

  registry::Store* priority_classes_;
};

}  // namespace

std::unique_ptr<Plugin> make_priority(const PluginContext& context) {
  return std::make_unique<Priority>(context.stores("scheduling.k8s.io", "priorityclasses"));
}

}  // namespace kapi::admission
