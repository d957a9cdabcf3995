// kube's capManagersManager (internal/capmanagers.go): at most so many Update entries are kept; the oldest are merged
// into one "ancient-changes" entry per apiVersion.
#include "base/go_time.h"
#include "server/fieldmanager/manager.h"

#include <algorithm>
#include <cstdint>
#include <utility>

namespace kapi::fieldmanager::internal {
namespace {

namespace json = boost::json;
namespace sm = structured_merge;

class CapManagersManager final : public Manager {
 public:
  CapManagersManager(ManagerPtr inner, int max_update_managers)
      : inner_(std::move(inner)), max_update_managers_(max_update_managers) {}

  Managed update(const json::object& live, json::object& updated, Managed managed,
                 const std::string& manager) const override {
    managed = inner_->update(live, updated, std::move(managed), manager);
    cap_update_managers(managed);
    return managed;
  }
  Applied apply(const json::object& live, const json::object& config, Managed managed, const std::string& manager,
                bool force) const override {
    return inner_->apply(live, config, std::move(managed), manager, force);
  }

 private:
  // Time.Unix() of a manager's entry; 0 when it has none.
  static std::int64_t seconds_of(const Managed& managed, const std::string& manager) {
    auto time = managed.times.find(manager);
    if (time == managed.times.end()) return 0;
    auto parsed = base::parse_rfc3339(time->second);
    return parsed ? parsed->seconds : 0;
  }

  void cap_update_managers(Managed& managed) const {
    std::vector<std::string> updaters;
    for (const auto& [manager, fields] : managed.fields) {
      if (!fields.applied) updaters.push_back(manager);
    }
    if (static_cast<int>(updaters.size()) <= max_update_managers_) return;

    // Oldest first; names break ties.
    std::vector<std::pair<std::int64_t, std::string>> by_age;
    for (auto& manager : updaters) by_age.emplace_back(seconds_of(managed, manager), std::move(manager));
    std::sort(by_age.begin(), by_age.end());

    std::map<std::string, std::string> first_of_version;
    int length = static_cast<int>(by_age.size());
    for (std::size_t i = 0; i < by_age.size() && length > max_update_managers_; ++i) {
      const std::string& manager = by_age[i].second;
      const sm::VersionedSet entry = managed.fields.at(manager);
      json::object bucket_entry{{"manager", "ancient-changes"}, {"operation", "Update"}, {"apiVersion", entry.api_version}};
      const std::string bucket = manager_identifier(bucket_entry);

      auto first = first_of_version.find(entry.api_version);
      if (first == first_of_version.end()) {
        first_of_version.emplace(entry.api_version, manager);
        continue;
      }
      if (!managed.fields.contains(bucket)) {
        // The first manager of the version becomes the bucket.
        sm::VersionedSet first_fields = std::move(managed.fields.at(first->second));
        managed.fields.erase(first->second);
        managed.fields[bucket] = std::move(first_fields);
      }
      sm::VersionedSet& bucket_fields = managed.fields[bucket];
      bucket_fields = sm::VersionedSet{entry.set.union_with(bucket_fields.set), entry.api_version, entry.applied};
      managed.fields.erase(manager);
      --length;

      // The bucket takes the time of the newer update merged into it.
      if (auto time = managed.times.find(manager); time != managed.times.end()) {
        managed.times[bucket] = time->second;
      } else {
        managed.times.erase(bucket);
      }
    }
  }

  ManagerPtr inner_;
  int max_update_managers_;
};

}  // namespace

ManagerPtr cap_managers_manager(ManagerPtr inner, int max_update_managers) {
  return std::make_unique<CapManagersManager>(std::move(inner), max_update_managers);
}

}  // namespace kapi::fieldmanager::internal
