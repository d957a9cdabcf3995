#include "server/authorization/rbac/policy_feed.h"

#include "base/log.h"
#include "base/sleep.h"
#include "server/apierrors/errors.h"
#include "server/registry/object_meta.h"

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

void PolicyFeed::apply(std::size_t index, const storage::WatchEvent& event) {
  auto object = registry::parse_json_object(event.object.value);
  if (!object) return;
  std::lock_guard lock(mutex_);
  observed_[index] = std::max(observed_[index], event.object.mod_revision);
  if (event.type == storage::WatchEventType::Deleted) objects_[index].erase(event.object.key);
  else objects_[index][event.object.key] = std::move(*object);
  publish();
}

asio::awaitable<void> PolicyFeed::follow(std::size_t index, std::shared_ptr<const std::atomic<bool>> stopping) {
  registry::Store& store = *stores_[index];
  while (!stopping->load()) {
    try {
      registry::ListRequest request;
      registry::ObjectList list = co_await store.list("", std::move(request));
      std::map<std::string, boost::json::object> objects;
      for (const auto& item : list.items) {
        auto object = registry::parse_json_object(item.json);
        if (!object) continue;
        std::string key = store.key(registry::meta_string(*object, "namespace"), registry::meta_string(*object, "name"));
        objects.emplace(std::move(key), std::move(*object));
      }
      replace(index, std::move(objects), list.revision);
      storage::WatchOptions options;
      options.resource_version = std::to_string(list.revision);
      auto stream = co_await store.watch("", std::move(options));
      while (auto event = co_await stream->next()) {
        if (event->type == storage::WatchEventType::Error) break;  // expired: relist
        if (event->type == storage::WatchEventType::Bookmark) continue;
        apply(index, *event);
      }
    } catch (const apierrors::ApiError& error) {
      if (!stopping->load()) logger_.warning("following the RBAC policy: " + error.status().message);
    } catch (const std::exception& error) {
      if (!stopping->load()) logger_.warning(std::string("following the RBAC policy: ") + error.what());
    }
    if (!stopping->load()) co_await base::sleep_for(std::chrono::seconds(1));
  }
}

}  // namespace kapi::authorization::rbac
