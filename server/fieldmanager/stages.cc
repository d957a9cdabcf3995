// The small stages of kube's field manager chain: versioncheck.go, skipnonapplied.go, buildmanagerinfo.go,
// managedfieldsupdater.go and stripmeta.go.
#include "base/go_time.h"
#include "server/fieldmanager/manager.h"

#include <stdexcept>
#include <utility>

namespace kapi::fieldmanager::internal {
namespace {

namespace json = boost::json;
namespace sm = structured_merge;

// versionCheckManager: an apply must be of the resource's kind and version.
class VersionCheckManager final : public Manager {
 public:
  VersionCheckManager(ManagerPtr inner, std::string api_version, std::string kind)
      : inner_(std::move(inner)), expected_(group_version_kind(json::object{{"apiVersion", api_version}, {"kind", kind}})) {}

  Managed update(const json::object& live, json::object& updated, Managed managed,
                 const std::string& manager) const override {
    return inner_->update(live, updated, std::move(managed), manager);
  }
  Applied apply(const json::object& live, const json::object& config, Managed managed, const std::string& manager,
                bool force) const override {
    if (std::string gvk = group_version_kind(config); gvk != expected_) {
      throw apierrors::ApiError(apierrors::bad_request("invalid object type: " + gvk));
    }
    return inner_->apply(live, config, std::move(managed), manager, force);
  }

 private:
  ManagerPtr inner_;
  std::string expected_;
};

bool has_uid(const json::object& object) {
  const auto* metadata = object.if_contains("metadata");
  if (!metadata || !metadata->is_object()) return false;
  const auto* uid = metadata->get_object().if_contains("uid");
  return uid && uid->is_string() && !uid->get_string().empty();
}

// skipNonAppliedManager: an object whose managers are not tracked (created before server-side apply, or with its
// managedFields reset) gets them on its first apply, where what it holds is given to "before-first-apply".
class SkipNonAppliedManager final : public Manager {
 public:
  SkipNonAppliedManager(ManagerPtr inner, json::object new_object, bool track_on_create)
      : inner_(std::move(inner)), new_object_(std::move(new_object)), track_on_create_(track_on_create) {}

  Managed update(const json::object& live, json::object& updated, Managed managed,
                 const std::string& manager) const override {
    // A create (the live object has no uid yet) is tracked with the configured probability; an update of an
    // untracked object stays untracked.
    if (managed.fields.empty() && (has_uid(live) || !track_on_create_)) return managed;
    return inner_->update(live, updated, std::move(managed), manager);
  }

  Applied apply(const json::object& live, const json::object& config, Managed managed, const std::string& manager,
                bool force) const override {
    if (managed.fields.empty()) {
      try {
        json::object existing = live;
        managed = inner_->update(new_object_, existing, std::move(managed), "before-first-apply");
      } catch (const std::exception& error) {
        throw std::runtime_error(std::string("failed to create manager for existing fields: ") + error.what());
      }
    }
    return inner_->apply(live, config, std::move(managed), manager, force);
  }

 private:
  ManagerPtr inner_;
  json::object new_object_;
  bool track_on_create_;
};

// buildManagerInfoManager: the manager's name becomes kube's identifier of its entry.
class BuildManagerInfoManager final : public Manager {
 public:
  BuildManagerInfoManager(ManagerPtr inner, std::string api_version, std::string subresource)
      : inner_(std::move(inner)), api_version_(std::move(api_version)), subresource_(std::move(subresource)) {}

  Managed update(const json::object& live, json::object& updated, Managed managed,
                 const std::string& manager) const override {
    return inner_->update(live, updated, std::move(managed), identifier(manager, "Update"));
  }
  Applied apply(const json::object& live, const json::object& config, Managed managed, const std::string& manager,
                bool force) const override {
    return inner_->apply(live, config, std::move(managed), identifier(manager, "Apply"), force);
  }

 private:
  std::string identifier(const std::string& manager, std::string_view operation) const {
    return manager_identifier(manager.empty() ? std::string_view("unknown") : std::string_view(manager), operation,
                              api_version_, subresource_);
  }

  ManagerPtr inner_;
  std::string api_version_;
  std::string subresource_;
};

// managedFieldsUpdater: an update's changes go to a placeholder manager first, so that a manager's entry (and its
// time) changes only when the update changed something; they are then merged into its previous Update entry.
class ManagedFieldsUpdater final : public Manager {
 public:
  ManagedFieldsUpdater(ManagerPtr inner, Clock clock) : inner_(std::move(inner)), clock_(std::move(clock)) {}

  Managed update(const json::object& live, json::object& updated, Managed managed,
                 const std::string& manager) const override {
    static const std::string kCurrentOperation = "current-operation";
    managed = inner_->update(live, updated, std::move(managed), kCurrentOperation);
    auto current = managed.fields.find(kCurrentOperation);
    if (current == managed.fields.end()) return managed;
    sm::VersionedSet changed = std::move(current->second);
    managed.fields.erase(current);
    if (auto previous = managed.fields.find(manager); previous != managed.fields.end()) {
      changed.set = changed.set.union_with(previous->second.set);
      previous->second = std::move(changed);
    } else {
      managed.fields.emplace(manager, std::move(changed));
    }
    managed.times[manager] = now();
    return managed;
  }

  Applied apply(const json::object& live, const json::object& config, Managed managed, const std::string& manager,
                bool force) const override {
    Applied applied = inner_->apply(live, config, std::move(managed), manager, force);
    if (applied.object) {
      applied.managed.times[manager] = now();
    } else {
      applied.object = live;
      remove_managed_fields(*applied.object);
    }
    return applied;
  }

 private:
  std::string now() const {
    auto time = clock_ ? clock_() : std::chrono::system_clock::now();
    return base::format_rfc3339(base::unix_time(time).seconds);
  }

  ManagerPtr inner_;
  Clock clock_;
};

// stripMetaManager: nobody owns the type's and the metadata's bookkeeping fields.
class StripMetaManager final : public Manager {
 public:
  explicit StripMetaManager(ManagerPtr inner) : inner_(std::move(inner)) {
    for (const char* field : {"apiVersion", "kind", "metadata"}) strip_.insert({sm::PathElement::field(field)});
    for (const char* field : {"name", "namespace", "creationTimestamp", "selfLink", "uid", "clusterName", "generation",
                              "managedFields", "resourceVersion"}) {
      strip_.insert({sm::PathElement::field("metadata"), sm::PathElement::field(field)});
    }
  }

  Managed update(const json::object& live, json::object& updated, Managed managed,
                 const std::string& manager) const override {
    managed = inner_->update(live, updated, std::move(managed), manager);
    strip(managed, manager);
    return managed;
  }
  Applied apply(const json::object& live, const json::object& config, Managed managed, const std::string& manager,
                bool force) const override {
    Applied applied = inner_->apply(live, config, std::move(managed), manager, force);
    strip(applied.managed, manager);
    return applied;
  }

 private:
  void strip(Managed& managed, const std::string& manager) const {
    auto entry = managed.fields.find(manager);
    if (entry == managed.fields.end()) return;
    sm::Set kept = entry->second.set.difference(strip_);
    if (kept.empty()) {
      managed.fields.erase(entry);
    } else {
      entry->second.set = std::move(kept);
    }
  }

  ManagerPtr inner_;
  sm::Set strip_;
};

}  // namespace

ManagerPtr version_check_manager(ManagerPtr inner, std::string api_version, std::string kind) {
  return std::make_unique<VersionCheckManager>(std::move(inner), std::move(api_version), std::move(kind));
}
ManagerPtr skip_non_applied_manager(ManagerPtr inner, json::object new_object, bool track_on_create) {
  return std::make_unique<SkipNonAppliedManager>(std::move(inner), std::move(new_object), track_on_create);
}
ManagerPtr build_manager_info_manager(ManagerPtr inner, std::string api_version, std::string subresource) {
  return std::make_unique<BuildManagerInfoManager>(std::move(inner), std::move(api_version), std::move(subresource));
}
ManagerPtr managed_fields_updater(ManagerPtr inner, Clock clock) {
  return std::make_unique<ManagedFieldsUpdater>(std::move(inner), std::move(clock));
}
ManagerPtr strip_meta_manager(ManagerPtr inner) { return std::make_unique<StripMetaManager>(std::move(inner)); }

}  // namespace kapi::fieldmanager::internal
