#include "storage/etcd3/feature_support.h"

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/steady_timer.hpp>
#include <asio/this_coro.hpp>
#include <asio/use_awaitable.hpp>

#include <array>
#include <charconv>

namespace kapi::storage::etcd3 {
namespace {

using namespace std::chrono_literals;

// "3.4.23" (or "v3.5.13-rc.0"): major, minor, patch; nullopt when it does not start so.
std::optional<std::array<int, 3>> parse_version(std::string_view version) {
  if (version.starts_with('v')) version.remove_prefix(1);
  std::array<int, 3> parts{};
  for (std::size_t i = 0; i < parts.size(); ++i) {
    auto [end, error] = std::from_chars(version.data(), version.data() + version.size(), parts[i]);
    if (error != std::errc() || end == version.data()) return std::nullopt;
    version.remove_prefix(static_cast<std::size_t>(end - version.data()));
    if (i + 1 < parts.size()) {
      if (!version.starts_with('.')) return std::nullopt;
      version.remove_prefix(1);
    }
  }
  return parts;
}

}  // namespace

bool orders_progress_responses(std::string_view version) {
  // kube's checker: at least 3.4.31 on 3.4, at least 3.5.13 on 3.5, anything from 3.6 on.
  const auto parsed = parse_version(version);
  if (!parsed) return false;
  const auto [major, minor, patch] = *parsed;
  if (major != 3) return major > 3;
  if (minor < 4) return false;
  if (minor == 4) return patch >= 31;
  if (minor == 5) return patch >= 13;
  return true;
}

FeatureSupport::FeatureSupport(asio::any_io_executor executor, std::shared_ptr<Client> client, base::Logger* logger)
    : state_(std::make_shared<State>()) {
  asio::co_spawn(executor, check(state_, std::move(client), logger), asio::detached);
}

FeatureSupport::~FeatureSupport() { state_->stopped = true; }

asio::awaitable<void> FeatureSupport::check(std::shared_ptr<State> state, std::shared_ptr<Client> client,
                                            base::Logger* logger) {
  asio::steady_timer timer(co_await asio::this_coro::executor);
  while (!state->stopped) {
    std::vector<std::optional<std::string>> versions = co_await client->member_versions(2s);
    if (state->stopped) co_return;  // the store, and with it the logger, may be gone
    bool all_answered = true;
    bool all_order = true;
    std::string described;
    for (std::size_t i = 0; i < versions.size(); ++i) {
      if (!versions[i]) {
        all_answered = false;
        break;
      }
      all_order = all_order && orders_progress_responses(*versions[i]);
      described += (described.empty() ? "" : ", ") + client->options().endpoints[i] + " " + *versions[i];
    }
    if (all_answered) {
      state->request_watch_progress = all_order;
      state->checked = true;
      if (logger) {
        logger->info("etcd " + described + (all_order ? ": watch progress requests are used"
                                                        : ": watch progress requests are not used (etcd before "
                                                          "3.4.31/3.5.13 may answer them ahead of the events)"));
      }
      co_return;
    }
    timer.expires_after(1s);
    co_await timer.async_wait(asio::use_awaitable);
  }
}

}  // namespace kapi::storage::etcd3
