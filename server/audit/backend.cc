#include "server/audit/backend.h"

namespace kapi::audit {

void PluginErrors::report(std::string_view plugin, std::string_view error, std::span<const Event> impacted) const {
  metrics_->audit_errors.inc({std::string(plugin)}, static_cast<double>(impacted.size()));
  std::string message = "Error in audit plugin '" + std::string(plugin) + "' affecting " +
                        std::to_string(impacted.size()) + " audit events: " + std::string(error) +
                        "\nImpacted events:\n";
  for (const Event& event : impacted) message += to_legacy_line(event) + "\n";
  logger_->error(message);
}

asio::awaitable<void> BackendDecorator::shutdown() {
  auto shutting_down = delegate_->shutdown();
  co_await std::move(shutting_down);
}

asio::awaitable<bool> IgnoreErrors::process_events(std::vector<Event> events) {
  auto processing = delegate().process_events(std::move(events));
  co_await std::move(processing);
  co_return true;
}

asio::awaitable<bool> UnionBackend::process_events(std::vector<Event> events) {
  bool stored = true;
  for (std::size_t i = 0; i < backends_.size(); ++i) {
    auto processing = backends_[i]->process_events(i + 1 < backends_.size() ? events : std::move(events));
    const bool this_one = co_await std::move(processing);
    stored = this_one && stored;
  }
  co_return stored;
}

void UnionBackend::run(asio::any_io_executor executor) {
  for (const auto& backend : backends_) backend->run(executor);
}

asio::awaitable<void> UnionBackend::shutdown() {
  for (const auto& backend : backends_) {
    auto shutting_down = backend->shutdown();
    co_await std::move(shutting_down);
  }
}

std::string UnionBackend::name() const {
  std::string names;
  for (const auto& backend : backends_) names.append(names.empty() ? "" : ",").append(backend->name());
  return "union[" + names + "]";
}

}  // namespace kapi::audit
