// ValidatingAdmissionWebhook (k8s.io/apiserver/pkg/admission/plugin/webhook/validating: plugin.go,
// dispatcher.go): every matching webhook called at once; the request is refused with the first failure to
// arrive, as kube takes the first error off its channel.
#include "server/plugin/admission/webhook/dispatch.h"

#include <asio/experimental/as_tuple.hpp>
#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/steady_timer.hpp>
#include <asio/strand.hpp>
#include <asio/this_coro.hpp>
#include <asio/use_awaitable.hpp>

namespace kapi::admission {
namespace webhook {
namespace {

using Clock = std::chrono::steady_clock;

// The calls in flight, shared with each of them: the first failure in the order they complete, and a timer the
// dispatch waits on until the last one is done. The calls and the wait all run on one strand of their own: the
// request's executor may be a pool of threads, and the calls share this state and the request's annotations.
struct Calls {
  explicit Calls(asio::any_io_executor executor, std::size_t count) : remaining(count), done(executor) {
    done.expires_at(Clock::time_point::max());
  }
  std::size_t remaining;
  asio::steady_timer done;
  std::exception_ptr first_failure;
};

class ValidatingWebhookPlugin final : public Plugin {
 public:
  explicit ValidatingWebhookPlugin(const PluginContext& context) : dispatcher_(context, false) {}

  bool handles(const Attributes& attributes) const override { return !is_exempt_configuration_resource(attributes); }
  bool validates() const override { return true; }

  asio::awaitable<void> validate(const Attributes& attributes) override {
    std::shared_ptr<const WebhookList> snapshot = co_await dispatcher_.webhooks();
    if (snapshot->empty()) co_return;
    VersionedAttributes versioned(attributes);
    std::vector<Match> matches = co_await dispatcher_.matching(*snapshot, versioned);
    if (matches.empty()) co_return;
    // Each call's objects in its version, converted before the calls start (they run at once and only read).
    std::vector<const Attributes*> seen;
    for (const Match& match : matches) seen.push_back(&versioned.as(match.invocation.kind));
    auto executor = co_await asio::this_coro::executor;
    auto strand = asio::make_strand(executor);
    auto calling = call_all(strand, std::move(snapshot), std::move(matches), std::move(seen));
    co_await asio::co_spawn(strand, std::move(calling), asio::use_awaitable);
  }

 private:
  asio::awaitable<void> call_all(asio::strand<asio::any_io_executor> strand,
                                 std::shared_ptr<const WebhookList> snapshot, std::vector<Match> matches,
                                 std::vector<const Attributes*> seen) {
    auto calls = std::make_shared<Calls>(strand, matches.size());
    for (std::size_t index = 0; index < matches.size(); ++index)
      asio::co_spawn(strand, call(calls, snapshot, matches[index], index, *seen[index]), asio::detached);
    if (calls->remaining > 0) co_await calls->done.async_wait(asio::experimental::as_tuple(asio::use_awaitable));
    if (calls->first_failure) std::rethrow_exception(calls->first_failure);
  }

  asio::awaitable<void> call(std::shared_ptr<Calls> calls, std::shared_ptr<const WebhookList> snapshot, Match match,
                             std::size_t index, const Attributes& attributes) {
    const Webhook& webhook = *match.webhook;
    const auto start = Clock::now();
    std::exception_ptr failure;
    try {
      co_await dispatcher_.call(webhook, match.invocation, attributes);
      dispatcher_.observe(webhook, attributes, start, WebhookDispatcher::Outcome::Allowed, 200);
    } catch (const CallFailure& error) {
      if (webhook.fail_open) {
        dispatcher_.observe(webhook, attributes, start, WebhookDispatcher::Outcome::Allowed, error.code());
        dispatcher_.record_fail_open(webhook, error);
        attributes.add_annotation("failed-open.validating.webhook.admission.k8s.io/round_0_index_" +
                                      std::to_string(index),
                                  webhook.name);
      } else {
        dispatcher_.observe(webhook, attributes, start, WebhookDispatcher::Outcome::CallingError, error.code());
        failure = std::make_exception_ptr(WebhookDispatcher::calling_error(webhook, error));
      }
    } catch (const Rejection& rejection) {
      dispatcher_.observe(webhook, attributes, start, WebhookDispatcher::Outcome::Rejected, rejection.status().code);
      failure = std::current_exception();
    } catch (...) {
      dispatcher_.observe(webhook, attributes, start, WebhookDispatcher::Outcome::InternalError, 0);
      failure = std::current_exception();
    }
    (void)snapshot;  // keeps `webhook` alive while the call runs
    if (failure && !calls->first_failure) calls->first_failure = failure;
    if (--calls->remaining == 0) calls->done.cancel();
  }

  WebhookDispatcher dispatcher_;
};

}  // namespace
}  // namespace webhook

std::unique_ptr<Plugin> make_validating_admission_webhook(const PluginContext& context) {
  return std::make_unique<webhook::ValidatingWebhookPlugin>(context);
}

}  // namespace kapi::admission
