#pragma once
// Periodic compaction of etcd's history, kube-apiserver's compactor: every interval, the apiserver that wins a
// compare-and-swap on the version of "compact_rev_key" compacts up to the revision it saw one interval earlier,
// so several apiservers sharing an etcd compact once per interval between them, and the history always keeps at
// least one interval of changes for watchers to resume from.
#include "base/log.h"
#include "storage/etcd3/client.h"
#include "storage/interface.h"

#include <asio/any_io_executor.hpp>
#include <asio/awaitable.hpp>

#include <chrono>
#include <cstdint>
#include <memory>

namespace kapi::storage::etcd3 {

// The key whose version is the compactors' shared logical clock and whose value the last compacted revision.
inline constexpr const char* kCompactRevisionKey = "compact_rev_key";

struct CompactionClock {
  std::int64_t time = 0;  // the version of kCompactRevisionKey this compactor expects
  Revision revision = 0;  // the store revision seen at the previous tick (what the next tick compacts to)
};

// One tick: returns the clock for the next one. Compacts only when this compactor won the tick and has seen an
// earlier one (never on its first tick: that only records where the next will compact to).
asio::awaitable<CompactionClock> compact_tick(Client& client, CompactionClock clock);

class Compactor {
 public:
  // Starts ticking every `interval` on `executor`, the first tick one interval from now. `logger` may be null.
  Compactor(asio::any_io_executor executor, std::shared_ptr<Client> client, std::chrono::nanoseconds interval,
            base::Logger* logger);
  // Stops the ticks; a tick in flight finishes on its own (bounded by the request timeout).
  ~Compactor();
  Compactor(const Compactor&) = delete;
  Compactor& operator=(const Compactor&) = delete;

 private:
  struct State;
  static asio::awaitable<void> run(std::shared_ptr<State> state, std::shared_ptr<Client> client,
                                   std::chrono::nanoseconds interval, base::Logger* logger);
  std::shared_ptr<State> state_;
};

}  // namespace kapi::storage::etcd3
