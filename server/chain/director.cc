#include "server/chain/director.h"

namespace kapi::server::chain {

void RouteTable::add(std::string root_path, Handler handler) { services_[std::move(root_path)] = std::move(handler); }

const Handler* RouteTable::match(std::string_view path) const {
  // The longest root that is the path itself or a parent of it.
  const Handler* best = nullptr;
  std::size_t best_length = 0;
  for (const auto& [root, handler] : services_) {
    bool matches = path == root || (path.size() > root.size() && path.starts_with(root) &&
                                    (root.ends_with('/') || path[root.size()] == '/'));
    if (matches && root.size() >= best_length) {
      best = &handler;
      best_length = root.size();
    }
  }
  return best;
}

void PathMux::handle(std::string path, Handler handler) { exact_[std::move(path)] = std::move(handler); }

void PathMux::handle_prefix(std::string prefix, Handler handler) { prefixes_[std::move(prefix)] = std::move(handler); }

const Handler* PathMux::match(std::string_view path) const {
  if (auto it = exact_.find(path); it != exact_.end()) return &it->second;
  const Handler* best = nullptr;
  std::size_t best_length = 0;
  for (const auto& [prefix, handler] : prefixes_) {
    if (path.starts_with(prefix) && prefix.size() >= best_length) {
      best = &handler;
      best_length = prefix.size();
    }
  }
  return best;
}

asio::awaitable<void> Director::serve(request::Exchange& exchange) const {
  const std::string& path = exchange.request.path;
  if (const Handler* handler = routes_.match(path)) co_return co_await (*handler)(exchange);
  if (const Handler* handler = non_api_.match(path)) co_return co_await (*handler)(exchange);
  co_await delegate_(exchange);
}

}  // namespace kapi::server::chain
