// TaintNodesByCondition (kube's plugin/pkg/admission/nodetaint/admission.go, release-1.32): a node joins with the
// node.kubernetes.io/not-ready:NoSchedule taint, so that nothing is scheduled onto it before the node lifecycle
// controller has seen it Ready and removed the taint.
#include "server/admission/plugin.h"
#include "server/registry/json_fields.h"

namespace kapi::admission {
namespace {

using namespace registry::fields;

constexpr std::string_view kTaintNodeNotReady = "node.kubernetes.io/not-ready";

class TaintNodesByCondition final : public Plugin {
 public:
  bool handles(const Attributes& attributes) const override {
    return attributes.operation == Operation::Create && is_resource(attributes, "", "nodes") &&
           attributes.subresource.empty() && attributes.object;
  }
  bool mutates() const override { return true; }

  asio::awaitable<void> admit(Attributes& attributes) override {
    json::object& spec = ensure_object(*attributes.object, "spec");
    bool tainted = false;
    // Taint.MatchTaint: the same key and effect, whatever the value.
    for_each_object(&spec, "taints", [&](const json::object& taint, std::size_t) {
      if (string_at(taint, "key") == kTaintNodeNotReady && string_at(taint, "effect") == "NoSchedule") tainted = true;
    });
    if (tainted) co_return;
    json::value& taints = spec["taints"];
    if (!taints.is_array()) taints = json::array();
    taints.as_array().push_back(json::object{{"key", kTaintNodeNotReady}, {"effect", "NoSchedule"}});
    co_return;
  }
};

}  // namespace

std::unique_ptr<Plugin> make_taint_nodes_by_condition(const PluginContext&) {
  return std::make_unique<TaintNodesByCondition>();
}

}  // namespace kapi::admission
