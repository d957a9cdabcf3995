#pragma once
// gRPC's callback API bridged into Asio coroutines. gRPC completes every operation on one of its own threads; the
// bridge posts the completion to the executor of the coroutine that awaits it, so no thread ever blocks per call
// and the coroutine resumes where it started. While a call is in flight the coroutine's execution context counts
// it as outstanding work, so io_context::run() cannot return under a pending completion.
#include <asio/any_io_executor.hpp>
#include <asio/associated_cancellation_slot.hpp>
#include <asio/associated_executor.hpp>
#include <asio/async_result.hpp>
#include <asio/execution/outstanding_work.hpp>
#include <asio/post.hpp>
#include <asio/prefer.hpp>
#include <asio/use_awaitable.hpp>
#include <grpcpp/client_context.h>
#include <grpcpp/support/client_callback.h>
#include <grpcpp/support/status.h>

#include <chrono>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace kapi::storage::etcd3 {

// A move-only Asio completion handler made copyable (std::function, which gRPC takes, needs that) and callable
// exactly once from any thread: the call posts the handler to its own associated executor.
template <typename Handler>
class PostingCompletion {
 public:
  explicit PostingCompletion(Handler handler)
      : executor_(asio::prefer(asio::get_associated_executor(handler), asio::execution::outstanding_work.tracked)),
        handler_(std::make_shared<Handler>(std::move(handler))) {}

  template <typename... Args>
  void operator()(Args... args) const {
    asio::post(executor_, [handler = std::move(*handler_), arguments = std::make_tuple(std::move(args)...)]() mutable {
      // The operation is over: a cancellation from now on is no longer this operation's.
      asio::get_associated_cancellation_slot(handler).clear();
      std::apply(std::move(handler), std::move(arguments));
    });
  }

 private:
  asio::any_io_executor executor_;
  std::shared_ptr<Handler> handler_;
};

// How one call is issued.
struct CallSettings {
  std::optional<std::chrono::system_clock::time_point> deadline;
  // false: fail fast with UNAVAILABLE while the channel is not connected (the call is then never sent).
  bool wait_for_ready = false;
  std::vector<std::pair<std::string, std::string>> metadata;

  void apply(grpc::ClientContext& context) const {
    if (deadline) context.set_deadline(*deadline);
    context.set_wait_for_ready(wait_for_ready);
    for (const auto& [name, value] : metadata) context.AddMetadata(name, value);
  }
};

template <typename Response>
struct UnaryResult {
  grpc::Status status;
  Response response;
};

// One unary call through a stub's callback method: `start(context, request, response, on_done)`, e.g.
// [&](auto... args) { stub.async()->Range(args...); }.
template <typename Response, typename Request, typename Start>
asio::awaitable<UnaryResult<Response>> async_unary(Start start, Request request, CallSettings settings) {
  // The exchange outlives the coroutine's interest in it: gRPC owns a reference until it completes.
  struct Exchange {
    grpc::ClientContext context;
    Request request;
    Response response;
  };
  auto exchange = std::make_shared<Exchange>();
  exchange->request = std::move(request);
  settings.apply(exchange->context);
  // Named, not a temporary: g++ 12 destroys a capturing lambda written inside a co_await expression twice.
  auto initiation = [exchange, &start](auto handler) {
    // A cancelled coroutine (the request's deadline passed, say) cancels its call, as a Go context cancels its
    // gRPC call: the caller is answered at once, whatever etcd does with the request.
    if (auto slot = asio::get_associated_cancellation_slot(handler); slot.is_connected()) {
      slot.assign([exchange](asio::cancellation_type) { exchange->context.TryCancel(); });
    }
    PostingCompletion complete(std::move(handler));
    start(&exchange->context, &exchange->request, &exchange->response,
          [exchange, complete](grpc::Status status) { complete(std::move(status)); });
  };
  grpc::Status status = co_await asio::async_initiate<const asio::use_awaitable_t<>&, void(grpc::Status)>(
      std::move(initiation), asio::use_awaitable);
  UnaryResult<Response> result;
  result.status = std::move(status);
  result.response.Swap(&exchange->response);
  co_return result;
}

// A bidirectional stream read by one coroutine and written by anyone. The reactor owns itself until gRPC reports
// the call done (a stream must finish before it is destroyed), so its owner must cancel() it before letting go.
// Reads are issued one at a time by read(); writes are queued and sent in order, without awaiting them.
template <typename Request, typename Response>
class BidiStream final : public grpc::ClientBidiReactor<Request, Response> {
 public:
  // start(context, reactor) is the stub's callback method, e.g. [&](auto... args) { stub.async()->Watch(args...); }.
  template <typename Start>
  static std::shared_ptr<BidiStream> open(Start start, const CallSettings& settings) {
    auto stream = std::shared_ptr<BidiStream>(new BidiStream());
    stream->self_ = stream;
    settings.apply(stream->context_);
    start(&stream->context_, stream.get());
    // Reads and writes are started from coroutines, outside the reactions: the hold keeps the call from
    // completing between them, and is removed once no such operation can follow.
    stream->AddHold();
    stream->StartCall();
    return stream;
  }

  BidiStream(const BidiStream&) = delete;
  BidiStream& operator=(const BidiStream&) = delete;

  // The next message, or std::nullopt once the stream has ended or was cancelled (finish() then has the status).
  // One read at a time.
  asio::awaitable<std::optional<Response>> read() {
    return asio::async_initiate<const asio::use_awaitable_t<>&, void(std::optional<Response>)>(
        [this](auto handler) {
          PostingCompletion complete(std::move(handler));
          std::unique_lock lock(mutex_);
          if (closing_) {
            lock.unlock();
            complete(std::optional<Response>{});
            return;
          }
          read_handler_ = complete;
          read_pending_ = true;
          lock.unlock();
          this->StartRead(&incoming_);
        },
        asio::use_awaitable);
  }

  // Queues a message; dropped silently once the stream is ending.
  void write(Request request) {
    std::unique_lock lock(mutex_);
    if (closing_) return;
    if (writing_) {
      outgoing_.push_back(std::move(request));
      return;
    }
    writing_ = true;
    current_write_ = std::move(request);
    ++starting_;
    lock.unlock();
    this->StartWrite(&current_write_);
    lock.lock();
    --starting_;
    bool release = release_hold_if_idle_locked();
    lock.unlock();
    if (release) this->RemoveHold();
  }

  // Ends the call from the client side; a pending read then completes with std::nullopt. Safe from any thread,
  // any number of times.
  void cancel() {
    std::unique_lock lock(mutex_);
    closing_ = true;
    outgoing_.clear();
    bool release = release_hold_if_idle_locked();
    lock.unlock();
    context_.TryCancel();
    if (release) this->RemoveHold();
  }

  // The call's final status; waits until gRPC has finished the call (after a failed read or cancel()).
  asio::awaitable<grpc::Status> finish() {
    return asio::async_initiate<const asio::use_awaitable_t<>&, void(grpc::Status)>(
        [this](auto handler) {
          PostingCompletion complete(std::move(handler));
          std::unique_lock lock(mutex_);
          if (status_) {
            grpc::Status status = *status_;
            lock.unlock();
            complete(std::move(status));
            return;
          }
          done_handler_ = complete;
        },
        asio::use_awaitable);
  }

 private:
  BidiStream() = default;

  bool release_hold_if_idle_locked() {
    if (!closing_ || read_pending_ || starting_ > 0 || hold_released_) return false;
    hold_released_ = true;
    return true;
  }

  void OnReadDone(bool ok) override {
    std::unique_lock lock(mutex_);
    read_pending_ = false;
    std::optional<Response> message;
    if (ok) {
      message.emplace(std::move(incoming_));
      incoming_.Clear();
    } else {
      closing_ = true;
      outgoing_.clear();
    }
    auto complete = std::move(read_handler_);
    bool release = release_hold_if_idle_locked();
    lock.unlock();
    complete(std::move(message));
    if (release) this->RemoveHold();
  }

  void OnWriteDone(bool ok) override {
    std::unique_lock lock(mutex_);
    if (!ok) outgoing_.clear();
    if (outgoing_.empty()) {
      writing_ = false;
      return;
    }
    current_write_ = std::move(outgoing_.front());
    outgoing_.pop_front();
    lock.unlock();
    this->StartWrite(&current_write_);  // from within a reaction: no hold needed
  }

  void OnDone(const grpc::Status& status) override {
    std::unique_lock lock(mutex_);
    status_ = status;
    auto complete = std::move(done_handler_);
    auto self = std::move(self_);  // may be the last reference: released after the lock
    lock.unlock();
    if (complete) complete(status);
  }

  grpc::ClientContext context_;
  std::mutex mutex_;
  std::shared_ptr<BidiStream> self_;
  Response incoming_;
  std::function<void(std::optional<Response>)> read_handler_;
  Request current_write_;
  std::deque<Request> outgoing_;
  bool writing_ = false;
  bool read_pending_ = false;
  bool closing_ = false;
  bool hold_released_ = false;
  int starting_ = 0;
  std::optional<grpc::Status> status_;
  std::function<void(grpc::Status)> done_handler_;
};

}  // namespace kapi::storage::etcd3
