// DefaultTolerationSeconds (kube's plugin/pkg/admission/defaulttolerationseconds/admission.go, release-1.32):
// a pod that does not tolerate the NoExecute taints node.kubernetes.io/not-ready and node.kubernetes.io/unreachable
// tolerates them for --default-not-ready-toleration-seconds and --default-unreachable-toleration-seconds, so that
// its node's failure evicts it only after that time.
#include "server/admission/plugin.h"
#include "server/registry/json_fields.h"

namespace kapi::admission {
namespace {

using namespace registry::fields;

constexpr std::string_view kTaintNodeNotReady = "node.kubernetes.io/not-ready";
constexpr std::string_view kTaintNodeUnreachable = "node.kubernetes.io/unreachable";

// Whether the toleration covers `key`'s NoExecute taint: an empty key and an empty effect match any.
bool tolerates(const json::object& toleration, std::string_view key) {
  const std::string_view toleration_key = string_at(toleration, "key");
  const std::string_view effect = string_at(toleration, "effect");
  return (toleration_key == key || toleration_key.empty()) && (effect == "NoExecute" || effect.empty());
}

json::object toleration(std::string_view key, std::int64_t seconds) {
  return json::object{{"key", key}, {"operator", "Exists"}, {"effect", "NoExecute"}, {"tolerationSeconds", seconds}};
}

class DefaultTolerationSeconds final : public Plugin {
 public:
  DefaultTolerationSeconds(std::int64_t not_ready_seconds, std::int64_t unreachable_seconds)
      : not_ready_seconds_(not_ready_seconds), unreachable_seconds_(unreachable_seconds) {}

  bool handles(const Attributes& attributes) const override {
    return is_resource(attributes, "", "pods") && attributes.subresource.empty() && attributes.object &&
           (attributes.operation == Operation::Create || attributes.operation == Operation::Update);
  }
  bool mutates() const override { return true; }

  asio::awaitable<void> admit(Attributes& attributes) override {
    json::object& spec = ensure_object(*attributes.object, "spec");
    bool tolerates_not_ready = false;
    bool tolerates_unreachable = false;
    for_each_object(&spec, "tolerations", [&](const json::object& existing, std::size_t) {
      tolerates_not_ready = tolerates_not_ready || tolerates(existing, kTaintNodeNotReady);
      tolerates_unreachable = tolerates_unreachable || tolerates(existing, kTaintNodeUnreachable);
    });
    if (tolerates_not_ready && tolerates_unreachable) co_return;
    json::value& tolerations = spec["tolerations"];
    if (!tolerations.is_array()) tolerations = json::array();
    if (!tolerates_not_ready) tolerations.as_array().push_back(toleration(kTaintNodeNotReady, not_ready_seconds_));
    if (!tolerates_unreachable)
      tolerations.as_array().push_back(toleration(kTaintNodeUnreachable, unreachable_seconds_));
    co_return;
  }

 private:
  std::int64_t not_ready_seconds_;
  std::int64_t unreachable_seconds_;
};

}  // namespace

std::unique_ptr<Plugin> make_default_toleration_seconds(const PluginContext& context) {
  return std::make_unique<DefaultTolerationSeconds>(context.default_not_ready_toleration_seconds,
                                                    context.default_unreachable_toleration_seconds);
}

}  // namespace kapi::admission
