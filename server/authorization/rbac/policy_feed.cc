#include "server/authorization/rbac/policy_feed.h"

#include "server/registry/object_meta.h"
#include "server/registry/reflector.h"

#include <boost/json.hpp>

#include <algorithm>

namespace kapi::authorization::rbac {

bool PolicyFeed::synced() const {
  std::lock_guard lock(mutex_);
  return std::all_of(listed_.begin(), listed_.end(), [](bool listed) { return listed; });
}

storage::Revision PolicyFeed::observed_revision(std::size_t index) const {
  std::lock_guard lock(mutex_);
  return observed_[index];
}

void PolicyFeed::publish() {
  auto policy = std::make_shared<PolicySnapshot>();
  for (const auto& objects : objects_) {
    for (const auto& [key, object] : objects) {
      policy->add_role(object);
      policy->add_binding(object);
    }
  }
  authorizer_->set_policy(std::move(policy));
}

void PolicyFeed::replace(std::size_t index, std::map<std::string, boost::json::object> objects,
                         storage::Revision revision) {
  std::lock_guard lock(mutex_);
  objects_[index] = std::move(objects);
  listed_[index] = true;
  observed_[index] = revision;
  publish();
}

void PolicyFeed::apply(std::size_t index, const storage::WatchEvent& event, boost::json::object object) {
  std::lock_guard lock(mutex_);
  observed_[index] = std::max(observed_[index], event.object.mod_revision);
  if (event.type == storage::WatchEventType::Deleted) objects_[index].erase(event.object.key);
  else objects_[index][event.object.key] = std::move(object);
  publish();
}

asio::awaitable<void> PolicyFeed::follow(std::size_t index, std::shared_ptr<const std::atomic<bool>> stopping) {
  registry::Store& store = *stores_[index];
  registry::ReflectorHandlers handlers;
  handlers.replace = [this, index, &store](std::vector<boost::json::object> objects,
                                           storage::Revision revision) -> asio::awaitable<void> {
    std::map<std::string, boost::json::object> by_key;
    for (auto& object : objects) {
      std::string key = store.key(registry::meta_string(object, "namespace"), registry::meta_string(object, "name"));
      by_key.emplace(std::move(key), std::move(object));
    }
    replace(index, std::move(by_key), revision);
    co_return;
  };
  handlers.apply = [this, index](const storage::WatchEvent& event, boost::json::object object) -> asio::awaitable<void> {
    apply(index, event, std::move(object));
    co_return;
  };
  registry::ReflectorOptions options{"the RBAC policy", std::chrono::seconds(1)};
  auto following = registry::reflect(store, std::move(handlers), std::move(options), std::move(stopping), logger_);
  co_await std::move(following);
}

}  // namespace kapi::authorization::rbac
