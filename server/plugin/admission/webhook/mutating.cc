// MutatingAdmissionWebhook (k8s.io/apiserver/pkg/admission/plugin/webhook/mutating: plugin.go, dispatcher.go,
// reinvocationcontext.go): the matching webhooks called one after the other in configuration-name order, each
// one's JSON patch applied to the object the next one sees. A change asks the chain for its second pass
// (server/admission/chain.h), where webhooks with reinvocationPolicy IfNeeded are called again when the object
// changed after them.
#include "server/plugin/admission/webhook/dispatch.h"

#include "server/admission/object_interfaces.h"
#include "server/patch/json_patch.h"
#include "server/patch/patch_error.h"

#include <boost/json.hpp>

#include <algorithm>
#include <any>
#include <optional>
#include <set>

namespace kapi::admission {
namespace webhook {
namespace {

namespace json = boost::json;
using Clock = std::chrono::steady_clock;

// {"configuration":..,"webhook":..,"mutated":..}: the value of kube's mutation audit annotation.
std::string mutation_annotation(const Webhook& webhook, bool mutated) {
  return json::serialize(json::object{{"configuration", webhook.configuration_name},
                                      {"webhook", webhook.name},
                                      {"mutated", mutated}});
}

// What the plugin keeps across the chain's two passes (kube's webhookReinvokeContext).
struct ReinvokeContext {
  // The object as the last pass of the webhooks left it, kept only while IfNeeded webhooks may be reinvoked.
  std::optional<json::object> last_output;
  std::set<std::string> invoked_reinvocable;  // IfNeeded webhooks called since the object last changed
  std::set<std::string> reinvoke;             // the webhooks the second pass calls

  // The object changed: every IfNeeded webhook called before the change is called again.
  void require_reinvoking_invoked() {
    reinvoke.merge(invoked_reinvocable);
    invoked_reinvocable.clear();
  }
};

constexpr std::string_view kPluginName = "MutatingAdmissionWebhook";

// kube's PatchAuditAnnotation: the patch as Go marshals it again (each operation's keys in order).
std::string patch_annotation(const Webhook& webhook, const json::array& operations) {
  json::array sorted;
  for (const json::value& operation : operations) {
    if (!operation.is_object()) {
      sorted.push_back(operation);
      continue;
    }
    std::vector<std::string_view> keys;
    for (const auto& member : operation.as_object()) keys.push_back(member.key());
    std::ranges::sort(keys);
    json::object ordered;
    for (std::string_view key : keys) ordered[key] = operation.as_object().at(key);
    sorted.push_back(std::move(ordered));
  }
  return json::serialize(json::object{{"configuration", webhook.configuration_name},
                                      {"webhook", webhook.name},
                                      {"patch", std::move(sorted)},
                                      {"patchType", "JSONPatch"}});
}

class MutatingWebhookPlugin final : public Plugin {
 public:
  explicit MutatingWebhookPlugin(const PluginContext& context) : dispatcher_(context, true) {}

  bool handles(const Attributes& attributes) const override { return !is_exempt_configuration_resource(attributes); }
  bool mutates() const override { return true; }

  // Each matching webhook in turn, each on the object as the previous one left it, converted to the version the
  // webhook is called with; a second pass of the chain calls only the webhooks that asked for it.
  asio::awaitable<void> admit(Attributes& attributes) override {
    std::shared_ptr<const WebhookList> snapshot = co_await dispatcher_.webhooks();
    if (snapshot->empty()) co_return;
    Reinvocation& reinvocation = attributes.reinvocation;
    auto entry = reinvocation.values.try_emplace(std::string(kPluginName), ReinvokeContext{}).first;
    ReinvokeContext& context = *std::any_cast<ReinvokeContext>(&entry->second);
    // The plugins that ran again before this pass changed the object: every IfNeeded webhook sees it again.
    if (reinvocation.is_reinvoke && context.last_output && attributes.object &&
        *context.last_output != *attributes.object)
      context.require_reinvoking_invoked();
    VersionedAttributes versioned(attributes);
    NamespaceLabels namespace_labels = dispatcher_.namespace_labels(attributes);
    std::exception_ptr failed;
    try {
      for (std::size_t index = 0; index < snapshot->size(); ++index) {
        const Webhook& webhook = (*snapshot)[index];
        // A webhook not called in the first pass is not called in the second, even if it now matches.
        if (reinvocation.is_reinvoke && !context.reinvoke.contains(webhook.uid)) continue;
        std::optional<Invocation> invocation = co_await dispatcher_.applies(webhook, versioned, namespace_labels);
        if (!invocation) continue;
        const Attributes& seen = versioned.as(invocation->kind);
        const int round = reinvocation.is_reinvoke ? 1 : 0;
        const bool changed = co_await invoke(webhook, *invocation, index, round, seen);
        if (changed) {
          versioned.changed(seen);
          context.require_reinvoking_invoked();
          reinvocation.should_reinvoke = true;
        }
        if (webhook.reinvoke_if_needed) context.invoked_reinvocable.insert(webhook.uid);
      }
      versioned.flush();
    } catch (...) {
      failed = std::current_exception();
    }
    // What the next pass compares its object with; a copy only when a next pass could reinvoke a webhook.
    context.last_output.reset();
    if (!context.invoked_reinvocable.empty() && attributes.object) context.last_output = *attributes.object;
    if (failed) std::rethrow_exception(failed);
  }

 private:
  // One call; whether its patch changed the object of `attributes`.
  asio::awaitable<bool> invoke(const Webhook& webhook, const Invocation& invocation, std::size_t index, int round,
                               const Attributes& attributes) {
    const std::string key_suffix = "round_" + std::to_string(round) + "_index_" + std::to_string(index);
    const auto start = Clock::now();
    bool changed = false;
    std::optional<CallFailure> failure;
    std::exception_ptr refused;
    WebhookDispatcher::Outcome outcome = WebhookDispatcher::Outcome::Allowed;
    int code = 200;
    try {
      ReviewResponse response = co_await dispatcher_.call(webhook, invocation, attributes);
      const Applied applied = apply_patch(webhook, response, attributes);
      changed = applied.changed;
      if (!applied.operations.empty())
        attributes.add_request_level_annotation("patch.webhook.admission.k8s.io/" + key_suffix,
                                                patch_annotation(webhook, applied.operations));
      // What the patch left unset is defaulted as decoding the object would (a container it added gets its
      // imagePullPolicy, ...).
      if (changed && attributes.object_interfaces)
        attributes.object_interfaces->default_object(*attributes.object, invocation.kind);
    } catch (const CallFailure& error) {
      failure = error;
      code = error.code();
      outcome = WebhookDispatcher::Outcome::CallingError;
    } catch (const Rejection& rejection) {
      refused = std::current_exception();
      code = rejection.status().code;
      outcome = WebhookDispatcher::Outcome::Rejected;
    } catch (...) {
      refused = std::current_exception();
      code = 0;
      outcome = WebhookDispatcher::Outcome::InternalError;
    }
    attributes.add_annotation("mutation.webhook.admission.k8s.io/" + key_suffix, mutation_annotation(webhook, changed));
    // A call that failed open is no rejection.
    if (failure && webhook.fail_open) {
      dispatcher_.observe(webhook, attributes, start, WebhookDispatcher::Outcome::Allowed, code);
    } else {
      dispatcher_.observe(webhook, attributes, start, outcome, code);
    }
    if (failure) {
      if (!webhook.fail_open) throw WebhookDispatcher::calling_error(webhook, *failure);
      dispatcher_.record_fail_open(webhook, *failure);
      attributes.add_annotation("failed-open.mutation.webhook.admission.k8s.io/" + key_suffix, webhook.name);
      co_return false;
    }
    if (refused) std::rethrow_exception(refused);
    co_return changed;
  }

  // The webhook's patch applied to the object: its operations (none when it sent none), and whether it changed it.
  struct Applied {
    bool changed = false;
    json::array operations;
  };
  static Applied apply_patch(const Webhook& webhook, const ReviewResponse& response, const Attributes& attributes) {
    if (response.patch.empty()) return {};
    std::optional<json::value> operations;
    try {
      operations = json::parse(response.patch);
    } catch (const std::exception&) {
    }
    if (!operations || !operations->is_array())
      throw CallFailure("received undecodable patch in webhook response: json: cannot unmarshal " +
                            std::string(operations ? "object" : "string") + " into Go value of type jsonpatch.Patch",
                        503);
    if (operations->as_array().empty()) return {};
    if (!attributes.object)
      throw apierrors::ApiError(apierrors::internal_error(
          "admission webhook \"" + webhook.name + "\" attempted to modify the object, which is not supported for this operation"));
    if (response.patch_type != "JSONPatch")
      throw CallFailure("unsupported patch type \"" + response.patch_type + "\"", 400);
    json::value patched;
    try {
      patched = patch::apply_json_patch(json::value(*attributes.object), response.patch);
    } catch (const patch::PatchError& error) {
      throw apierrors::ApiError(apierrors::internal_error(error.detail()));
    }
    if (!patched.is_object())
      throw apierrors::ApiError(apierrors::internal_error("json: cannot unmarshal " +
                                                          std::string(patched.is_array() ? "array" : "value") +
                                                          " into Go value of type map[string]interface {}"));
    Applied applied{.changed = patched.as_object() != *attributes.object,
                    .operations = std::move(operations->as_array())};
    if (applied.changed) *attributes.object = std::move(patched.as_object());
    return applied;
  }

  WebhookDispatcher dispatcher_;
};

}  // namespace
}  // namespace webhook

std::unique_ptr<Plugin> make_mutating_admission_webhook(const PluginContext& context) {
  return std::make_unique<webhook::MutatingWebhookPlugin>(context);
}

}  // namespace kapi::admission
