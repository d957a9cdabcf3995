#pragma once
// In-process watch fan-out: the writer publishes each committed batch to the hub, the hub appends every change
// to the inbox of each watcher whose key range holds it. Nothing polls the database; the history table only
// serves a watch's replay from a past revision before it joins the live feed.
//
// Slow watchers: an inbox holds at most `capacity` items. A watcher that falls further behind is closed: it
// still yields everything already in its inbox (a gap-free prefix of the history), then ends (next() returns
// nullopt). The consumer re-watches from the last revision it saw and the store replays the rest from history,
// which is what kube's reflector does whenever a watch ends.
#include "storage/embedded/completion.h"
#include "storage/embedded/mvcc.h"
#include "storage/interface.h"

#include <cstddef>
#include <deque>
#include <memory>
#include <mutex>
#include <vector>

namespace kapi::storage::embedded {

class Watcher {
 public:
  Watcher(KeyRange range, std::size_t capacity, bool progress_notify)
      : range_(std::move(range)), capacity_(capacity), progress_notify_(progress_notify) {}

  struct Item {
    std::shared_ptr<const Change> change;  // null for a bookmark
    Revision bookmark = 0;
  };

  // Waits for the next item; nullopt once the watcher has ended and its inbox is drained, or when stopped.
  asio::awaitable<std::optional<Item>> pop();
  // Ends the watcher now: pending and later pop()s return nullopt. Thread-safe.
  void stop();
  bool stopped();

 private:
  friend class WatchHub;
  // Under the hub's lock. Returns a waiter to call once the locks are released.
  Completion<bool> push(Item item);
  Completion<bool> end();

  const KeyRange range_;
  const std::size_t capacity_;
  const bool progress_notify_;

  std::mutex mutex_;
  std::deque<Item> inbox_;
  bool ended_ = false;    // no more items will arrive; drain the inbox, then end
  bool stopped_ = false;  // the consumer stopped: end at once
  Completion<bool> waiter_;
};

class WatchHub {
 public:
  explicit WatchHub(Revision revision) : revision_(revision) {}

  // Registers `watcher`; it receives every change after the returned revision.
  Revision add(std::shared_ptr<Watcher> watcher);
  void remove(const Watcher* watcher);

  // Called by the single writer, in commit order, after the batch is durable.
  void publish(const std::vector<Change>& changes, Revision revision);
  // A Bookmark at the published revision to every watcher that asked for progress notifications.
  void progress();
  // The last published revision: every change up to it is durable and has been fanned out.
  Revision revision() const;
  // Ends every watcher (store shutdown); later watchers end immediately.
  void close();

 private:
  mutable std::mutex mutex_;
  Revision revision_;
  bool closed_ = false;
  std::vector<std::shared_ptr<Watcher>> watchers_;
};

// The WatchStream handed to callers: initial events (current state, or an Error), then the changes replayed from
// history, then the live inbox, each change turned into a watch event through the watch's predicate the way
// kube's etcd3 watcher does (a Modified that leaves the predicate becomes Deleted, one that enters it Added).
class HubWatchStream final : public WatchStream {
 public:
  struct Start {
    std::deque<WatchEvent> initial;  // sent first, as they are
    std::deque<Change> replay;       // changes after the requested revision, up to `snapshot`
    Revision snapshot = 0;           // the revision the initial events / replay reach
    Revision skip_through = 0;       // live changes at or below it are already covered
    bool end_after_initial = false;  // e.g. after an Error event
  };
  HubWatchStream(std::shared_ptr<WatchHub> hub, std::shared_ptr<Watcher> watcher, Predicate predicate, Start start);
  ~HubWatchStream() override;

  asio::awaitable<std::optional<WatchEvent>> next() override;
  void stop() override;

 private:
  std::optional<WatchEvent> to_event(const Change& change) const;

  std::shared_ptr<WatchHub> hub_;
  std::shared_ptr<Watcher> watcher_;
  Predicate predicate_;
  Start start_;
};

}  // namespace kapi::storage::embedded
