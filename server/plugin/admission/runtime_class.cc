// RuntimeClass (kube's plugin/pkg/admission/runtimeclass/admission.go, release-1.32): a new pod that names a
// RuntimeClass takes its pod overhead (refused when it states a different one) and its scheduling constraints:
// the class's nodeSelector merged into the pod's (refused on a conflicting value) and its tolerations merged with
// the pod's (tolerations.MergeTolerations). Validation refuses an overhead the pod's RuntimeClass does not define.
#include "base/quantity.h"
#include "server/admission/errors.h"
#include "server/admission/plugin.h"
#include "server/plugin/admission/object_lookup.h"
#include "server/registry/json_fields.h"

#include <algorithm>
#include <optional>
#include <vector>

namespace kapi::admission {
namespace {

using namespace registry::fields;

// apiequality.Semantic.DeepEqual of two ResourceLists: the same names with equal quantities (nil and empty alike).
bool same_resources(const json::object* left, const json::object* right) {
  static const json::object kEmpty;
  const json::object& a = left ? *left : kEmpty;
  const json::object& b = right ? *right : kEmpty;
  if (a.size() != b.size()) return false;
  for (const auto& [name, quantity] : a) {
    auto other = b.find(name);
    if (other == b.end() || !quantity.is_string() || !other->value().is_string()) return false;
    auto x = parse_quantity(quantity.as_string());
    auto y = parse_quantity(other->value().as_string());
    if (!x || !y || *x != *y) return false;
  }
  return true;
}

struct Toleration {
  std::string key;
  std::string operator_;
  std::string value;
  std::string effect;
  std::optional<std::int64_t> seconds;
  bool operator==(const Toleration&) const = default;
};

Toleration toleration_of(const json::object& object) {
  return {std::string(string_at(object, "key")), std::string(string_at(object, "operator")),
          std::string(string_at(object, "value")), std::string(string_at(object, "effect")),
          int_at(object, "tolerationSeconds")};
}

// tolerations.isSuperset: whether `wide` tolerates everything `t` does.
bool is_superset(const Toleration& wide, const Toleration& t) {
  if (wide == t) return true;
  if (t.key != wide.key && (!wide.key.empty() || wide.operator_ != "Exists")) return false;
  if (t.effect != wide.effect && !wide.effect.empty()) return false;
  if (wide.effect == "NoExecute" && wide.seconds && (!t.seconds || *t.seconds > *wide.seconds)) return false;
  if (wide.operator_ == "Equal" || wide.operator_.empty()) return t.operator_ == "Equal" && t.value == wide.value;
  return wide.operator_ == "Exists";
}

// tolerations.MergeTolerations: both lists with every toleration another one covers left out (of equal ones, the
// first stays).
json::array merge_tolerations(const json::array& first, const json::array& second) {
  std::vector<const json::value*> all;
  for (const json::array* list : {&first, &second})
    for (const json::value& item : *list) all.push_back(&item);
  auto parse = [](const json::value* item) {
    return item->is_object() ? toleration_of(item->as_object()) : Toleration{};
  };
  json::array merged;
  std::vector<Toleration> kept;
  for (std::size_t i = 0; i < all.size(); ++i) {
    const Toleration t = parse(all[i]);
    bool redundant = std::ranges::any_of(kept, [&](const Toleration& other) { return is_superset(other, t); });
    for (std::size_t j = i + 1; !redundant && j < all.size(); ++j) {
      const Toleration later = parse(all[j]);
      redundant = !(t == later) && is_superset(later, t);
    }
    if (redundant) continue;
    kept.push_back(t);
    merged.push_back(*all[i]);
  }
  return merged;
}

class RuntimeClass final : public Plugin {
 public:
  explicit RuntimeClass(registry::Store* runtime_classes) : runtime_classes_(runtime_classes) {}

  bool handles(const Attributes& attributes) const override {
    return attributes.operation == Operation::Create && is_resource(attributes, "", "pods") &&
           attributes.subresource.empty() && attributes.object;
  }
  bool mutates() const override { return true; }
  bool validates() const override { return true; }

  asio::awaitable<void> admit(Attributes& attributes) override {
    std::optional<json::object> runtime_class = co_await runtime_class_of(attributes);
    if (!runtime_class) co_return;
    json::object& spec = ensure_object(*attributes.object, "spec");
    set_overhead(attributes, spec, *runtime_class);
    set_scheduling(attributes, spec, *runtime_class);
  }

  asio::awaitable<void> validate(const Attributes& attributes) override {
    std::optional<json::object> runtime_class = co_await runtime_class_of(attributes);
    const json::object& spec = object_or_empty(*attributes.object, "spec");
    const json::object* stated = object_at(spec, "overhead");
    if (!stated || stated->empty()) co_return;
    const json::object* overhead = runtime_class ? object_at(*runtime_class, "overhead") : nullptr;
    if (!overhead)
      throw forbidden(attributes, "pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead");
    if (!same_resources(object_at(*overhead, "podFixed"), stated))
      throw forbidden(attributes, "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead");
  }

 private:
  asio::awaitable<std::optional<json::object>> runtime_class_of(const Attributes& attributes) {
    const json::object& spec = object_or_empty(*attributes.object, "spec");
    if (!has(spec, "runtimeClassName")) co_return std::nullopt;
    const std::string name(string_at(spec, "runtimeClassName"));
    std::optional<json::object> runtime_class = co_await find_object(*runtime_classes_, "", name);
    if (!runtime_class) throw forbidden(attributes, "pod rejected: RuntimeClass \"" + name + "\" not found");
    co_return runtime_class;
  }

  static void set_overhead(const Attributes& attributes, json::object& spec, const json::object& runtime_class) {
    const json::object* overhead = object_at(runtime_class, "overhead");
    if (!overhead) return;
    const json::object* pod_fixed = object_at(*overhead, "podFixed");
    const json::object* stated = object_at(spec, "overhead");
    if (stated && !stated->empty() && !same_resources(pod_fixed, stated))
      throw forbidden(attributes, "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead");
    if (pod_fixed) spec["overhead"] = *pod_fixed;
    else spec.erase("overhead");
  }

  static void set_scheduling(const Attributes& attributes, json::object& spec, const json::object& runtime_class) {
    const json::object* scheduling = object_at(runtime_class, "scheduling");
    if (!scheduling) return;
    const json::object* class_selector = object_at(*scheduling, "nodeSelector");
    if (json::object* pod_selector = object_at(spec, "nodeSelector")) {
      if (class_selector) {
        // Go ranges over the map in random order; the first conflict by name is the one reported here.
        std::vector<std::string> keys;
        for (const auto& [key, value] : *class_selector) keys.emplace_back(key);
        std::ranges::sort(keys);
        for (const std::string& key : keys) {
          const std::string class_value(string_at(*class_selector, key));
          auto existing = pod_selector->find(key);
          if (existing != pod_selector->end() && existing->value().is_string() &&
              existing->value().as_string() != class_value)
            throw forbidden(attributes, "conflict: runtimeClass.scheduling.nodeSelector[" + key + "] = " + class_value +
                                            "; pod.spec.nodeSelector[" + key + "] = " +
                                            std::string(existing->value().as_string()));
          (*pod_selector)[key] = class_value;
        }
      }
    } else if (class_selector) {
      spec["nodeSelector"] = *class_selector;
    }
    json::array merged = merge_tolerations(array_or_empty(spec, "tolerations"), array_or_empty(*scheduling, "tolerations"));
    if (merged.empty()) spec.erase("tolerations");
    else spec["tolerations"] = std::move(merged);
  }

  registry::Store* runtime_classes_;
};

}  // namespace

std::unique_ptr<Plugin> make_runtime_class(const PluginContext& context) {
  return std::make_unique<RuntimeClass>(context.stores("node.k8s.io", "runtimeclasses"));
}

}  // namespace kapi::admission
