#pragma once
// A filter is one stage of the common handler chain (the role of a `With…` wrapper in
// k8s.io/apiserver/pkg/server/filters): it may answer the request itself or pass it on with `co_await next(exchange)`.
// A stage that acts only before passing the request on is a plain function returning `next(exchange)`: it then
// costs no coroutine frame (an allocation, a suspension and a resumption per request).
#include "request/exchange.h"

#include <asio/awaitable.hpp>

#include <memory>
#include <string_view>
#include <vector>

namespace kapi::filters {

// The filter stages work on the request layer's types.
using request::Exchange;
using request::Handler;
using request::RequestContext;
using request::RequestInfo;
using request::UserInfo;

class Chain;

// The rest of the chain after the current stage.
class Next {
 public:
  Next(const Chain& chain, std::size_t index) : chain_(&chain), index_(index) {}
  asio::awaitable<void> operator()(Exchange& exchange) const;

 private:
  const Chain* chain_;
  std::size_t index_;
};

class Filter {
 public:
  virtual ~Filter() = default;
  virtual std::string_view name() const = 0;
  virtual asio::awaitable<void> handle(Exchange& exchange, Next next) = 0;
};

// Filters in order, outermost first, then the handler.
class Chain {
 public:
  Chain(std::vector<std::unique_ptr<Filter>> filters, Handler handler)
      : filters_(std::move(filters)), handler_(std::move(handler)) {}
  asio::awaitable<void> operator()(Exchange& exchange) const {
    exchange.context.filter_latencies.reserve(filters_.size());  // one allocation, not one per doubling
    return Next(*this, 0)(exchange);
  }
  const std::vector<std::unique_ptr<Filter>>& filters() const { return filters_; }

 private:
  friend class Next;
  std::vector<std::unique_ptr<Filter>> filters_;
  Handler handler_;
};

inline asio::awaitable<void> Next::operator()(Exchange& exchange) const {
  // A stage's own time is from its entry until it passes the request on.
  auto now = std::chrono::steady_clock::now();
  auto& context = exchange.context;
  if (index_ > 0) context.filter_latencies.emplace_back(chain_->filters_[index_ - 1]->name(), now - context.stage_entered);
  context.stage_entered = now;
  if (index_ < chain_->filters_.size())
    return chain_->filters_[index_]->handle(exchange, Next(*chain_, index_ + 1));
  return chain_->handler_(exchange);
}

}  // namespace kapi::filters
