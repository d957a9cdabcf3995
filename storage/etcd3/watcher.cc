#include "storage/etcd3/watcher.h"

#include "storage/etcd3/conversions.h"
#include "storage/keys.h"

#include <asio/steady_timer.hpp>
#include <asio/this_coro.hpp>

#include <algorithm>
#include <deque>

namespace kapi::storage::etcd3 {
namespace {

const char* const kWatchTooOld = "The resourceVersion for the provided watch is too old.";

// The watch id etcd puts on the answer to a WatchProgressRequest: it belongs to no single watch.
constexpr std::int64_t kProgressRequestWatchId = -1;

// Statuses after which reconnecting cannot help.
bool permanent_failure(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::INVALID_ARGUMENT:
    case grpc::StatusCode::PERMISSION_DENIED:
    case grpc::StatusCode::UNAUTHENTICATED:
    case grpc::StatusCode::UNIMPLEMENTED:
    case grpc::StatusCode::FAILED_PRECONDITION:
    case grpc::StatusCode::OUT_OF_RANGE:
      return true;
    default:
      return false;
  }
}

}  // namespace

// What a watch shares with the store's registry and with stop() callers on other threads: the call in use.
class WatchSession {
 public:
  explicit WatchSession(bool progress_notify) : progress_notify_(progress_notify) {}

  // Installs a freshly opened call; false (and the call cancelled) when the watch was stopped meanwhile.
  bool adopt(const std::shared_ptr<WatchCall>& call) {
    std::unique_lock lock(mutex_);
    if (stopped_) {
      lock.unlock();
      call->cancel();
      return false;
    }
    call_ = call;
    return true;
  }

  void drop(const std::shared_ptr<WatchCall>& call) {
    std::lock_guard lock(mutex_);
    if (call_ == call) call_.reset();
  }

  std::shared_ptr<WatchCall> call() const {
    std::lock_guard lock(mutex_);
    return call_;
  }

  bool stopped() const {
    std::lock_guard lock(mutex_);
    return stopped_;
  }

  void stop() {
    std::unique_lock lock(mutex_);
    stopped_ = true;
    auto call = std::move(call_);
    lock.unlock();
    if (call) call->cancel();
  }

  void request_progress() {
    if (!progress_notify_) return;
    auto current = call();
    if (!current) return;  // reconnecting: the new stream's events and periodic progress will follow
    etcdserverpb::WatchRequest request;
    request.mutable_progress_request();
    current->write(std::move(request));
  }

 private:
  const bool progress_notify_;
  mutable std::mutex mutex_;
  std::shared_ptr<WatchCall> call_;
  bool stopped_ = false;
};

void WatchRegistry::add(const std::shared_ptr<WatchSession>& session) {
  std::lock_guard lock(mutex_);
  std::erase_if(sessions_, [](const auto& weak) { return weak.expired(); });
  sessions_.push_back(session);
}

void WatchRegistry::request_progress() {
  std::vector<std::shared_ptr<WatchSession>> live;
  {
    std::lock_guard lock(mutex_);
    std::erase_if(sessions_, [](const auto& weak) { return weak.expired(); });
    for (const auto& weak : sessions_) {
      if (auto session = weak.lock()) live.push_back(std::move(session));
    }
  }
  for (const auto& session : live) session->request_progress();
}

namespace {

class EtcdWatch final : public WatchStream {
 public:
  EtcdWatch(std::shared_ptr<Client> client, std::shared_ptr<WatchSession> session, std::string key,
            std::string range_end, WatchOptions options, Revision resume_after, std::deque<WatchEvent> initial)
      : client_(std::move(client)),
        session_(std::move(session)),
        key_(std::move(key)),
        range_end_(std::move(range_end)),
        options_(std::move(options)),
        resume_after_(resume_after),
        pending_(std::move(initial)) {}

  ~EtcdWatch() override { session_->stop(); }

  void stop() override { session_->stop(); }

  // Opens the first stream, retrying until the request timeout.
  asio::awaitable<void> establish() {
    const auto deadline = std::chrono::steady_clock::now() + client_->options().request_timeout;
    for (;;) {
      if (co_await open_stream() || session_->stopped()) co_return;
      if (ended_) co_return;  // a permanent failure, reported as the first event
      if (std::chrono::steady_clock::now() + client_->backoff(failures_) >= deadline) {
        throw StorageError(ErrorCode::Unreachable, key_, "etcd: cannot open a watch on any endpoint");
      }
      co_await back_off();
    }
  }

  asio::awaitable<std::optional<WatchEvent>> next() override {
    for (;;) {
      if (!pending_.empty()) {
        WatchEvent event = std::move(pending_.front());
        pending_.pop_front();
        co_return event;
      }
      if (ended_) co_return std::nullopt;
      auto call = session_->call();
      if (!call) {
        if (session_->stopped()) {
          ended_ = true;
        } else if (co_await back_off()) {
          co_await open_stream();
        }
        continue;
      }
      auto response = co_await call->read();
      if (response) {
        handle(*response, *call);
      } else {
        co_await retire(call);
      }
    }
  }

 private:
  // One attempt: opens a stream, asks for the watch from resume_after_ + 1 and waits for etcd's answer.
  asio::awaitable<bool> open_stream() {
    auto call = client_->open_watch();
    if (!session_->adopt(call)) co_return false;
    etcdserverpb::WatchRequest request;
    auto* create = request.mutable_create_request();
    create->set_key(key_);
    create->set_range_end(range_end_);
    create->set_start_revision(resume_after_ + 1);
    create->set_prev_kv(true);
    create->set_progress_notify(options_.progress_notify);
    call->write(std::move(request));
    auto response = co_await call->read();
    if (!response) {
      co_await retire(call);
      ++failures_;
      co_return false;
    }
    handle(*response, *call);
    co_return true;
  }

  // A stream that ended: collects its status and decides whether the watch goes on.
  asio::awaitable<void> retire(std::shared_ptr<WatchCall> call) {
    call->cancel();
    grpc::Status status = co_await call->finish();
    session_->drop(call);
    if (session_->stopped() || ended_) co_return;
    if (permanent_failure(status.error_code())) {
      end_with(StorageError(ErrorCode::Internal, key_, "etcd watch: " + status.error_message()));
    } else {
      client_->report_broken_watch();
    }
  }

  // Waits before the next reconnect, in short slices so that stop() from another thread is noticed; false when
  // the watch was stopped.
  asio::awaitable<bool> back_off() {
    const auto until = std::chrono::steady_clock::now() + client_->backoff(failures_);
    asio::steady_timer timer(co_await asio::this_coro::executor);
    for (auto now = std::chrono::steady_clock::now(); now < until; now = std::chrono::steady_clock::now()) {
      if (session_->stopped()) co_return false;
      timer.expires_after(std::min<std::chrono::steady_clock::duration>(until - now, std::chrono::milliseconds(50)));
      co_await timer.async_wait(asio::use_awaitable);
    }
    co_return !session_->stopped();
  }

  void handle(const etcdserverpb::WatchResponse& response, WatchCall& call) {
    if (response.compact_revision() != 0) {
      end_with(StorageError(ErrorCode::Expired, key_, kWatchTooOld, response.compact_revision()));
      return;
    }
    if (response.canceled()) {
      // etcd dropped the watch without compaction (e.g. its member lost the leader): resume on a new stream.
      call.cancel();
      return;
    }
    failures_ = 0;
    if (response.created()) return;
    if (response.events_size() == 0) {
      handle_progress(response);
      return;
    }
    const Revision delivered = resume_after_;
    for (const auto& event : response.events()) {
      const Revision revision = event.kv().mod_revision();
      if (revision <= delivered) continue;  // already delivered before a reconnect
      if (!translate(event)) return;
      resume_after_ = std::max(resume_after_, revision);
    }
  }

  void handle_progress(const etcdserverpb::WatchResponse& response) {
    const Revision revision = response.header().revision();
    // Periodic notifications go to watches etcd has fully caught up, through the same queue as their events, so
    // they are safe to resume from. Answers to progress requests arrive only from an etcd that orders them with
    // the events (the store asks no other, see feature_support.h); resuming still goes by events and periodic
    // notifications alone, which never depend on that check.
    if (response.watch_id() != kProgressRequestWatchId) resume_after_ = std::max(resume_after_, revision);
    if (!options_.progress_notify || revision < last_delivered_) return;
    WatchEvent bookmark;
    bookmark.type = WatchEventType::Bookmark;
    bookmark.revision = revision;
    bookmark.object.mod_revision = revision;
    pending_.push_back(std::move(bookmark));
  }

  bool matches(const KeyValue& kv) const { return !options_.predicate || options_.predicate(kv); }

  // etcd's event as kube's watchChan.transform turns it into a watch event; false when the watch had to end.
  bool translate(const mvccpb::Event& event) {
    const Revision revision = event.kv().mod_revision();
    const bool deleted = event.type() == mvccpb::Event::DELETE;
    const bool created = !deleted && event.kv().create_revision() == revision;
    if (!created && !event.has_prev_kv()) {
      end_with(StorageError(ErrorCode::Internal, event.kv().key(),
                            "etcd event received with PrevKv=nil (key=\"" + event.kv().key() +
                                "\", modRevision=" + std::to_string(revision) + ", type=" +
                                (deleted ? "DELETE" : "PUT") + ")"));
      return false;
    }
    WatchEvent out;
    out.revision = revision;
    // A deleted object is reported in its last state, carrying the deletion's revision.
    auto as_deleted = [&] {
      out.type = WatchEventType::Deleted;
      out.prev_object = to_key_value(event.prev_kv());
      out.object = out.prev_object;
      out.object.mod_revision = revision;
    };
    if (deleted) {
      as_deleted();
      if (!matches(out.object)) return true;
    } else if (created) {
      out.type = WatchEventType::Added;
      out.object = to_key_value(event.kv());
      if (!matches(out.object)) return true;
    } else {
      KeyValue current = to_key_value(event.kv());
      KeyValue previous = to_key_value(event.prev_kv());
      const bool current_passes = matches(current);
      const bool previous_passes = !options_.predicate || matches(previous);
      if (current_passes && previous_passes) {
        out.type = WatchEventType::Modified;
        out.object = std::move(current);
        out.prev_object = std::move(previous);
      } else if (current_passes) {
        out.type = WatchEventType::Added;  // the object entered the selection
        out.object = std::move(current);
      } else if (previous_passes) {
        as_deleted();  // the object left the selection
      } else {
        return true;
      }
    }
    last_delivered_ = revision;
    pending_.push_back(std::move(out));
    return true;
  }

  void end_with(StorageError error) {
    WatchEvent event;
    event.type = WatchEventType::Error;
    event.revision = error.revision();
    event.error = std::move(error);
    pending_.push_back(std::move(event));
    ended_ = true;
    session_->stop();
  }

  std::shared_ptr<Client> client_;
  std::shared_ptr<WatchSession> session_;
  const std::string key_;
  const std::string range_end_;
  const WatchOptions options_;
  Revision resume_after_;       // every change up to here is in pending_ or was delivered
  Revision last_delivered_ = 0;  // the newest event revision queued, so bookmarks never go backwards
  std::deque<WatchEvent> pending_;
  int failures_ = 0;
  bool ended_ = false;
};

}  // namespace

asio::awaitable<std::unique_ptr<WatchStream>> start_watch(std::shared_ptr<Client> client,
                                                          std::shared_ptr<WatchRegistry> registry, std::string key,
                                                          WatchOptions options) {
  const Revision requested = parse_resource_version(options.resource_version, key);
  // kube-apiserver's etcd3 store only accepts sendInitialEvents where it means a plain watch from now; the
  // Cacher serves the rest of WatchList.
  if (options.send_initial_events && requested != 0) {
    throw StorageError(ErrorCode::InvalidArgument, key,
                       "sendInitialEvents with a resourceVersion is unsupported by the storage backend");
  }
  if (options.recursive && !key.ends_with('/')) key += '/';
  std::string range_end = options.recursive ? prefix_range_end(key) : std::string();

  // Like kube's watchChan.sync: "from now" starts with the current state.
  std::deque<WatchEvent> initial;
  Revision resume_after = requested;
  if (requested == 0) {
    etcdserverpb::RangeRequest range;
    range.set_key(key);
    range.set_range_end(range_end);
    etcdserverpb::RangeResponse state;
    try {
      state = co_await client->range(std::move(range));
    } catch (const RpcError& error) {
      throw to_storage_error(error, key, kWatchTooOld);
    }
    for (const auto& kv : state.kvs()) {
      WatchEvent added;
      added.type = WatchEventType::Added;
      added.object = to_key_value(kv);
      added.revision = kv.mod_revision();
      if (!options.predicate || options.predicate(added.object)) initial.push_back(std::move(added));
    }
    resume_after = state.header().revision();
  }

  auto session = std::make_shared<WatchSession>(options.progress_notify);
  registry->add(session);
  auto watch = std::make_unique<EtcdWatch>(std::move(client), std::move(session), std::move(key),
                                           std::move(range_end), std::move(options), resume_after,
                                           std::move(initial));
  co_await watch->establish();
  co_return watch;
}

}  // namespace kapi::storage::etcd3
