// The Store's machinery: opening, the group-commit writer, reader connections, TTL expiry and periodic
// compaction. The storage::Interface operations built on it are in store_operations.cc.
#include "storage/embedded/store.h"

#include <asio/experimental/as_tuple.hpp>
#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/post.hpp>

#include <algorithm>
#include <limits>
#include <system_error>

namespace kapi::storage::embedded {
namespace {

std::filesystem::path prepare_data_dir(const std::filesystem::path& dir) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) {
    throw StorageError(ErrorCode::Internal, "", "cannot create data dir " + dir.string() + ": " + error.message());
  }
  return dir / "kapi.db";
}

MvccWriter open_writer(const std::filesystem::path& file) {
  try {
    return MvccWriter(file);
  } catch (const sqlite::SqliteError& e) {
    throw StorageError(ErrorCode::Internal, "", e.what());
  }
}

}  // namespace

std::unique_ptr<Store> Store::open(Options options) {
  return std::unique_ptr<Store>(new Store(std::move(options)));
}

Store::Store(Options options)
    : options_(std::move(options)),
      database_file_(prepare_data_dir(options_.data_dir)),
      pool_(std::max<std::size_t>(options_.pool_threads, 2)),
      background_(asio::make_strand(pool_.get_executor())),
      writer_(open_writer(database_file_)),
      hub_(std::make_shared<WatchHub>(writer_.snapshot().revision)) {
  asio::co_spawn(background_, expiry_loop(), asio::detached);
  if (options_.compaction_interval.count() > 0) asio::co_spawn(background_, compaction_loop(), asio::detached);
}

Store::~Store() {
  stopping_ = true;
  // Both loops check stopping_ on the strand before arming a timer, so after this runs none is left waiting.
  asio::post(background_, [this] {
    if (expiry_timer_ != nullptr) expiry_timer_->cancel();
    if (compaction_timer_ != nullptr) compaction_timer_->cancel();
  });
  hub_->close();
  pool_.join();
}

// ---------------------------------------------------------------------------------------------- readers

std::unique_ptr<MvccReader> Store::checkout_reader() {
  {
    std::lock_guard lock(readers_mutex_);
    if (!idle_readers_.empty()) {
      auto reader = std::move(idle_readers_.back());
      idle_readers_.pop_back();
      return reader;
    }
  }
  // At most one connection per pool thread is ever open at once, so this stays small.
  try {
    return std::make_unique<MvccReader>(database_file_);
  } catch (const sqlite::SqliteError& e) {
    throw StorageError(ErrorCode::Internal, "", e.what());
  }
}

void Store::return_reader(std::unique_ptr<MvccReader> reader) {
  if (!reader) return;
  std::lock_guard lock(readers_mutex_);
  idle_readers_.push_back(std::move(reader));
}

// ---------------------------------------------------------------------------------------------- writes

asio::awaitable<std::vector<WriteOutcome>> Store::write(std::vector<WriteOp> ops) {
  auto enqueue = [this, &ops](Completion<std::vector<WriteOutcome>> done) {
    bool start_writer = false;
    {
      std::lock_guard lock(writes_mutex_);
      if (!stopping_) {
        queued_writes_.push_back(PendingWrite{std::move(ops), std::move(done)});
        start_writer = !std::exchange(writer_active_, true);
      }
    }
    // When stopping, `done` was not queued and is dropped here, which fails the write with Unreachable.
    if (start_writer) asio::post(pool_, [this] { run_batches(); });
  };
  auto committed = async_completion<std::vector<WriteOutcome>>(std::move(enqueue));
  co_return co_await std::move(committed);
}

asio::awaitable<WriteOutcome> Store::write_one(WriteOp op) {
  std::vector<WriteOp> ops;
  ops.push_back(std::move(op));
  auto committed = write(std::move(ops));
  std::vector<WriteOutcome> outcomes = co_await std::move(committed);
  if (outcomes.front().error) std::rethrow_exception(outcomes.front().error);
  co_return std::move(outcomes.front());
}

void Store::run_batches() {
  for (;;) {
    std::vector<PendingWrite> batch;
    {
      std::lock_guard lock(writes_mutex_);
      if (queued_writes_.empty()) {
        writer_active_ = false;
        return;
      }
      batch.swap(queued_writes_);
    }
    std::vector<WriteOp> ops;
    for (PendingWrite& pending : batch) {
      std::move(pending.ops.begin(), pending.ops.end(), std::back_inserter(ops));
    }
    std::vector<Change> changes;
    std::vector<WriteOutcome> outcomes;
    std::exception_ptr failure;
    try {
      outcomes = writer_.apply(ops, std::chrono::system_clock::now(), changes);
    } catch (const sqlite::SqliteError& e) {
      failure = std::make_exception_ptr(StorageError(ErrorCode::Internal, "", e.what()));
    } catch (...) {
      failure = std::current_exception();
    }
    // Watchers see the batch before any writer is acknowledged, so a client that reads its own write and then
    // watches from "now" cannot miss it.
    if (!failure) hub_->publish(changes, writer_.snapshot().revision);
    auto next = outcomes.begin();
    for (PendingWrite& pending : batch) {
      if (failure) {
        pending.done(failure, {});
        continue;
      }
      const auto count = static_cast<std::ptrdiff_t>(pending.ops.size());
      std::vector<WriteOutcome> mine(std::make_move_iterator(next), std::make_move_iterator(next + count));
      next += count;
      pending.done(nullptr, std::move(mine));
    }
  }
}

// ---------------------------------------------------------------------------------------------- TTL expiry

void Store::note_expiry(std::chrono::seconds ttl) {
  const std::int64_t deadline = unix_millis(std::chrono::system_clock::now() + ttl);
  asio::post(background_, [this, deadline] {
    if (expiry_hint_ms_ == 0 || deadline < expiry_hint_ms_) expiry_hint_ms_ = deadline;
    const auto steady_deadline =
        std::chrono::steady_clock::now() +
        std::chrono::milliseconds(deadline - unix_millis(std::chrono::system_clock::now()));
    if (expiry_timer_ != nullptr && steady_deadline < expiry_timer_->expiry()) expiry_timer_->cancel();
  });
}

// Deletes expired keys the way etcd revokes an expired lease: an ordinary deletion with its own revision and
// Deleted events. A key rewritten since its TTL was read keeps its new state (the delete compares mod_revision).
asio::awaitable<void> Store::expiry_loop() {
  using namespace std::chrono;
  constexpr std::int64_t kBatch = 1000;
  constexpr milliseconds kMaxSleep = hours(1);
  asio::steady_timer timer(background_);
  expiry_timer_ = &timer;
  while (!stopping_) {
    try {
      const std::int64_t now = unix_millis(system_clock::now());
      auto read_expired = with_reader([now](MvccReader& reader) { return reader.expired(now, kBatch); });
      auto expired = co_await std::move(read_expired);
      if (!expired.empty()) {
        std::vector<WriteOp> ops;
        for (auto& [key, mod_revision] : expired) {
          WriteOp op;
          op.kind = WriteOp::Kind::DeleteIfModRevision;
          op.key = std::move(key);
          op.expected_mod_revision = mod_revision;
          ops.push_back(std::move(op));
        }
        auto deleted = write(std::move(ops));
        co_await std::move(deleted);
        continue;
      }
      auto read_next = with_reader([](MvccReader& reader) { return reader.next_expiry_ms(); });
      const auto next = co_await std::move(read_next);
      if (stopping_) break;
      std::int64_t deadline = next.value_or(std::numeric_limits<std::int64_t>::max());
      if (expiry_hint_ms_ != 0) deadline = std::min(deadline, expiry_hint_ms_);
      expiry_hint_ms_ = 0;
      const auto wait = std::clamp(milliseconds(deadline - unix_millis(system_clock::now())), milliseconds(0),
                                   kMaxSleep);
      timer.expires_after(wait);
    } catch (const StorageError&) {
      // SQLite trouble (or shutdown): retry after a pause rather than stop expiring keys for good.
      if (stopping_) break;
      timer.expires_after(seconds(1));
    }
    co_await timer.async_wait(asio::experimental::as_tuple(asio::use_awaitable));
  }
  expiry_timer_ = nullptr;
}

// ---------------------------------------------------------------------------------------------- compaction

asio::awaitable<void> Store::compaction_loop() {
  asio::steady_timer timer(background_);
  compaction_timer_ = &timer;
  Revision previous_tick = 0;
  while (!stopping_) {
    timer.expires_after(options_.compaction_interval);
    co_await timer.async_wait(asio::experimental::as_tuple(asio::use_awaitable));
    if (stopping_) break;
    try {
      if (previous_tick > 0) co_await compact(previous_tick);
    } catch (const StorageError&) {
      // A failed compaction is retried, one revision later, at the next tick.
    }
    previous_tick = hub_->revision();
  }
  compaction_timer_ = nullptr;
}

}  // namespace kapi::storage::embedded
