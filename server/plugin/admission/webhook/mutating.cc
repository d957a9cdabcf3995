// MutatingAdmissionWebhook (k8s.io/apiserver/pkg/admission/plugin/webhook/mutating: plugin.go, dispatcher.go,
// reinvocationcontext.go): the matching webhooks called one after the other in configuration-name order, each
// one's JSON patch applied to the object the next one sees, and webhooks with reinvocationPolicy IfNeeded called
// once more when a later webhook changed the object.
#include "server/plugin/admission/webhook/dispatch.h"

#include "server/patch/json_patch.h"
#include "server/patch/patch_error.h"

#include <boost/json.hpp>

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

class MutatingWebhookPlugin final : public Plugin {
 public:
  explicit MutatingWebhookPlugin(const PluginContext& context) : dispatcher_(context, true) {}

  bool handles(const Attributes& attributes) const override { return !is_exempt_configuration_resource(attributes); }
  bool mutates() const override { return true; }

  asio::awaitable<void> admit(Attributes& attributes) override {
    std::shared_ptr<const WebhookList> snapshot;
    std::vector<Match> matches = co_await dispatcher_.matching(attributes, snapshot);
    if (matches.empty()) co_return;
    Rounds rounds;
    for (const Match& match : matches) co_await invoke(match.webhook, match.invocation, match.index, 0, attributes, rounds);
    if (!rounds.should_reinvoke || rounds.reinvoke.empty()) co_return;
    // kube reinvokes the whole chain once; here the other plugins came before the webhooks and do not run again.
    for (const Match& match : matches) {
      if (!rounds.reinvoke.contains(match.webhook->uid)) continue;
      std::optional<Invocation> invocation = co_await dispatcher_.applies(*match.webhook, attributes);
      if (!invocation) continue;
      co_await invoke(match.webhook, *invocation, match.index, 1, attributes, rounds);
    }
  }

 private:
  struct Rounds {
    std::set<std::string> invoked_reinvocable;  // IfNeeded webhooks called so far
    std::set<std::string> reinvoke;             // those called before the object last changed
    bool should_reinvoke = false;
  };

  asio::awaitable<void> invoke(const Webhook* webhook, const Invocation& invocation, std::size_t index, int round,
                               Attributes& attributes, Rounds& rounds) {
    const std::string key_suffix = "round_" + std::to_string(round) + "_index_" + std::to_string(index);
    const auto start = Clock::now();
    bool changed = false;
    std::optional<CallFailure> failure;
    std::exception_ptr refused;
    WebhookDispatcher::Outcome outcome = WebhookDispatcher::Outcome::Allowed;
    int code = 200;
    try {
      ReviewResponse response = co_await dispatcher_.call(*webhook, invocation, attributes);
      changed = apply_patch(*webhook, response, attributes);
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
    attributes.add_annotation("mutation.webhook.admission.k8s.io/" + key_suffix, mutation_annotation(*webhook, changed));
    // A call that failed open is no rejection.
    if (failure && webhook->fail_open) {
      dispatcher_.observe(*webhook, attributes, start, WebhookDispatcher::Outcome::Allowed, code);
    } else {
      dispatcher_.observe(*webhook, attributes, start, outcome, code);
    }
    if (changed) {
      rounds.reinvoke.insert(rounds.invoked_reinvocable.begin(), rounds.invoked_reinvocable.end());
      rounds.should_reinvoke = true;
    }
    if (webhook->reinvoke_if_needed) rounds.invoked_reinvocable.insert(webhook->uid);
    if (failure) {
      if (!webhook->fail_open) throw WebhookDispatcher::calling_error(*webhook, *failure);
      dispatcher_.record_fail_open(*webhook, *failure);
      attributes.add_annotation("failed-open.mutation.webhook.admission.k8s.io/" + key_suffix, webhook->name);
      co_return;
    }
    if (refused) std::rethrow_exception(refused);
  }

  // The webhook's patch applied to the object; whether it changed it.
  static bool apply_patch(const Webhook& webhook, const ReviewResponse& response, Attributes& attributes) {
    if (response.patch.empty()) return false;
    std::optional<json::value> operations;
    try {
      operations = json::parse(response.patch);
    } catch (const std::exception&) {
    }
    if (!operations || !operations->is_array())
      throw CallFailure("received undecodable patch in webhook response: json: cannot unmarshal " +
                            std::string(operations ? "object" : "string") + " into Go value of type jsonpatch.Patch",
                        503);
    if (operations->as_array().empty()) return false;
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
    if (patched.as_object() == *attributes.object) return false;
    *attributes.object = std::move(patched.as_object());
    return true;
  }

  WebhookDispatcher dispatcher_;
};

}  // namespace
}  // namespace webhook

std::unique_ptr<Plugin> make_mutating_admission_webhook(const PluginContext& context) {
  return std::make_unique<webhook::MutatingWebhookPlugin>(context);
}

}  // namespace kapi::admission
