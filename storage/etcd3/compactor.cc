#include "storage/etcd3/compactor.h"

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/dispatch.hpp>
#include <asio/experimental/as_tuple.hpp>
#include <asio/steady_timer.hpp>
#include <asio/strand.hpp>

#include <string>

namespace kapi::storage::etcd3 {

asio::awaitable<CompactionClock> compact_tick(Client& client, CompactionClock clock) {
  etcdserverpb::TxnRequest txn;
  auto* compare = txn.add_compare();
  compare->set_key(kCompactRevisionKey);
  compare->set_target(etcdserverpb::Compare::VERSION);
  compare->set_result(etcdserverpb::Compare::EQUAL);
  compare->set_version(clock.time);
  auto* put = txn.add_success()->mutable_request_put();  // bumps the key's version: the shared clock ticks
  put->set_key(kCompactRevisionKey);
  put->set_value(std::to_string(clock.revision));
  txn.add_failure()->mutable_request_range()->set_key(kCompactRevisionKey);

  auto response = co_await client.txn(std::move(txn));
  const Revision current = response.header().revision();
  if (!response.succeeded()) {
    // Another compactor ticked first: follow its clock and try again next interval.
    const auto& kvs = response.responses(0).response_range().kvs();
    co_return CompactionClock{kvs.empty() ? 0 : kvs[0].version(), current};
  }
  CompactionClock next{clock.time + 1, current};
  if (clock.revision == 0) co_return next;  // never compact on bootstrap
  etcdserverpb::CompactionRequest compaction;
  compaction.set_revision(clock.revision);
  try {
    co_await client.compact(std::move(compaction));
  } catch (const RpcError& error) {
    if (!error.compacted()) throw;  // someone compacted further already: nothing left to do
  }
  co_return next;
}

struct Compactor::State {
  explicit State(asio::any_io_executor executor) : strand(asio::make_strand(executor)), timer(strand) {}
  asio::strand<asio::any_io_executor> strand;
  asio::steady_timer timer;  // touched on the strand only
  bool stopped = false;      // likewise
};

asio::awaitable<void> Compactor::run(std::shared_ptr<State> state, std::shared_ptr<Client> client,
                                     std::chrono::nanoseconds interval, base::Logger* logger) {
  CompactionClock clock;
  while (!state->stopped) {
    state->timer.expires_after(interval);
    co_await state->timer.async_wait(asio::experimental::as_tuple(asio::use_awaitable));
    if (state->stopped) break;
    try {
      clock = co_await compact_tick(*client, clock);
    } catch (const std::exception& error) {
      if (logger) logger->error(std::string("etcd3: compaction failed: ") + error.what());
    }
  }
}

Compactor::Compactor(asio::any_io_executor executor, std::shared_ptr<Client> client,
                     std::chrono::nanoseconds interval, base::Logger* logger)
    : state_(std::make_shared<State>(std::move(executor))) {
  asio::co_spawn(state_->strand, run(state_, std::move(client), interval, logger), asio::detached);
}

Compactor::~Compactor() {
  asio::dispatch(state_->strand, [state = state_] {
    state->stopped = true;
    state->timer.cancel();
  });
}

}  // namespace kapi::storage::etcd3
