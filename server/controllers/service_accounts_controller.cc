#include "server/controllers/service_accounts_controller.h"

#include "base/log.h"
#include "server/apierrors/errors.h"
#include "server/registry/object_meta.h"
#include "server/registry/reflector.h"

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/this_coro.hpp>
#include <boost/json.hpp>

namespace kapi::controllers {
namespace {

namespace json = boost::json;

constexpr std::string_view kDefaultServiceAccount = "default";

bool active(const json::object& namespace_) {
  const json::value* status = namespace_.if_contains("status");
  const json::value* phase = status && status->is_object() ? status->as_object().if_contains("phase") : nullptr;
  // A namespace is Active until marked for deletion (its phase may not be written yet).
  return registry::meta_string(namespace_, "deletionTimestamp").empty() &&
         (!phase || !phase->is_string() || phase->as_string() == "Active");
}

}  // namespace

asio::awaitable<void> ServiceAccountsController::run() {
  auto executor = co_await asio::this_coro::executor;
  asio::co_spawn(executor, follow_service_accounts(), asio::detached);
  co_await follow_namespaces();
}

asio::awaitable<void> ServiceAccountsController::follow_namespaces() {
  auto executor = co_await asio::this_coro::executor;
  auto consider = [this, executor](const json::object& namespace_) {
    if (active(namespace_))
      asio::co_spawn(executor, ensure_default(std::string(registry::meta_string(namespace_, "name"))),
                     asio::detached);
  };
  registry::ReflectorHandlers handlers;
  handlers.replace = [consider](std::vector<json::object> namespaces, storage::Revision) -> asio::awaitable<void> {
    for (const auto& namespace_ : namespaces) consider(namespace_);
    co_return;
  };
  handlers.apply = [consider](const storage::WatchEvent& event, json::object namespace_) -> asio::awaitable<void> {
    if (event.type != storage::WatchEventType::Deleted) consider(namespace_);
    co_return;
  };
  registry::ReflectorOptions options{"the namespaces that need a default service account"};
  auto following = registry::reflect(namespaces_, std::move(handlers), std::move(options), stopping_, logger_);
  co_await std::move(following);
}

asio::awaitable<void> ServiceAccountsController::follow_service_accounts() {
  auto executor = co_await asio::this_coro::executor;
  registry::ReflectorHandlers handlers;
  // A deleted default account is made again (serviceAccountDeleted queues its namespace).
  handlers.apply = [this, executor](const storage::WatchEvent& event, json::object account) -> asio::awaitable<void> {
    if (event.type == storage::WatchEventType::Deleted && registry::meta_string(account, "name") == kDefaultServiceAccount)
      asio::co_spawn(executor, ensure_default(std::string(registry::meta_string(account, "namespace"))),
                     asio::detached);
    co_return;
  };
  registry::ReflectorOptions options{"the default service accounts"};
  auto following = registry::reflect(service_accounts_, std::move(handlers), std::move(options), stopping_, logger_);
  co_await std::move(following);
}

asio::awaitable<void> ServiceAccountsController::ensure_default(std::string namespace_) {
  if (stopping_->requested()) co_return;
  try {
    std::string name(kDefaultServiceAccount);
    try {
      registry::ReadObject existing = co_await service_accounts_.get(namespace_, name, "0");
      co_return;
    } catch (const apierrors::ApiError& error) {
      if (error.status().code != 404) throw;
    }
    json::object account{{"metadata", json::object{{"name", kDefaultServiceAccount}}}};
    registry::WriteOptions options;
    co_await service_accounts_.create(namespace_, std::move(account), options);
  } catch (const apierrors::ApiError& error) {
    // Made meanwhile, or the namespace went away or began terminating: nothing to do, as in kube.
    const int code = error.status().code;
    if (code != 409 && code != 404 && code != 403)
      logger_.warning("service accounts controller: namespace " + namespace_ + ": " + error.status().message);
  } catch (const std::exception& error) {
    logger_.warning("service accounts controller: namespace " + namespace_ + ": " + error.what());
  }
}

}  // namespace kapi::controllers
