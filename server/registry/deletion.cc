#include "server/registry/deletion.h"

#include "base/go_time.h"
#include "server/registry/object_meta.h"

#include <algorithm>
#include <chrono>
#include <set>

namespace kapi::registry {
namespace json = boost::json;

namespace {

std::int64_t now_seconds() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::optional<std::int64_t> int_field(const json::object& meta, std::string_view key) {
  const json::value* value = meta.if_contains(key);
  if (value && value->is_int64()) return value->as_int64();
  return std::nullopt;
}

std::vector<std::string_view> finalizers_of(const json::object& object) {
  std::vector<std::string_view> names;
  const json::value* meta = object.if_contains("metadata");
  const json::value* finalizers = meta && meta->is_object() ? meta->as_object().if_contains("finalizers") : nullptr;
  if (finalizers && finalizers->is_array())
    for (const json::value& name : finalizers->as_array())
      if (name.is_string()) names.push_back(name.as_string());
  return names;
}

// shouldOrphanDependents and shouldDeleteDependentsInForeground: the request first, then the object's own
// finalizers, then the kind's default.
struct Propagation {
  bool orphan = false;
  bool foreground = false;
};

Propagation propagation_for(const Strategy& strategy, const std::vector<std::string_view>& finalizers,
                            const DeleteOptions& options) {
  const GarbageCollectionPolicy policy = strategy.default_garbage_collection_policy();
  if (policy == GarbageCollectionPolicy::kUnsupported) return {};
  if (options.orphan_dependents) return {.orphan = *options.orphan_dependents};
  if (options.propagation_policy == "Orphan") return {.orphan = true};
  if (options.propagation_policy == "Foreground") return {.foreground = true};
  if (options.propagation_policy == "Background") return {};
  for (std::string_view finalizer : finalizers) {
    if (finalizer == kOrphanFinalizer) return {.orphan = true};
    if (finalizer == kForegroundDeletionFinalizer) return {.foreground = true};
  }
  return {.orphan = policy == GarbageCollectionPolicy::kOrphanDependents};
}

}  // namespace

bool has_finalizers(const json::object& object) { return !finalizers_of(object).empty(); }

bool has_finalizer(const json::object& object, std::string_view finalizer) {
  const std::vector<std::string_view> names = finalizers_of(object);
  return std::find(names.begin(), names.end(), finalizer) != names.end();
}

GracefulDeletion before_delete(const Strategy& strategy, json::object& object, std::optional<std::int64_t>& requested) {
  if (requested && *requested < 0) requested = 1;  // negative periods mean one second on the delete path
  json::object& meta = metadata_of(object);
  if (auto pending = int_field(meta, "deletionGracePeriodSeconds"); pending && *pending < 0)
    meta["deletionGracePeriodSeconds"] = 1;
  if (!strategy.graceful_deletion_period(object, requested).has_value()) return {};

  const std::string_view deletion_timestamp = meta_string(object, "deletionTimestamp");
  if (!deletion_timestamp.empty()) {
    // Already being deleted: a deletion due now is finished, and only a shorter grace period changes anything.
    const std::optional<std::int64_t> pending = int_field(meta, "deletionGracePeriodSeconds");
    if (!pending || *pending == 0) return {};
    if (!requested) {
      requested = *pending;
      return {.pending = true, .period = *pending};
    }
    if (*requested >= *pending) return {.pending = true, .period = *pending};
    const auto deadline = base::parse_rfc3339(deletion_timestamp);
    const std::int64_t started = (deadline ? deadline->seconds : now_seconds()) - *pending;
    meta["deletionTimestamp"] = base::format_rfc3339(started + *requested);
    meta["deletionGracePeriodSeconds"] = *requested;
    return {.graceful = true, .period = *requested};
  }

  const std::int64_t period = *strategy.graceful_deletion_period(object, requested);
  requested = period;  // the options and the object agree from here on, as CheckGracefulDelete leaves them
  meta["deletionTimestamp"] = base::format_rfc3339(now_seconds() + period);
  meta["deletionGracePeriodSeconds"] = period;
  if (auto generation = int_field(meta, "generation"); generation && *generation > 0)
    meta["generation"] = *generation + 1;
  return {.graceful = true, .period = period};
}

std::optional<json::array> garbage_collection_finalizers(const Strategy& strategy, const json::object& object,
                                                         const DeleteOptions& options) {
  const std::vector<std::string_view> current = finalizers_of(object);
  const Propagation propagation = propagation_for(strategy, current, options);
  json::array wanted;
  for (std::string_view finalizer : current)
    if (finalizer != kOrphanFinalizer && finalizer != kForegroundDeletionFinalizer) wanted.emplace_back(finalizer);
  if (propagation.orphan) wanted.emplace_back(kOrphanFinalizer);
  if (propagation.foreground) wanted.emplace_back(kForegroundDeletionFinalizer);
  // Compared as sets, as kube compares them: a reordering or a repeated name is no change.
  const std::set<std::string_view> before(current.begin(), current.end());
  std::set<std::string_view> after;
  for (const json::value& finalizer : wanted) after.insert(std::string_view(finalizer.as_string()));
  if (before == after) return std::nullopt;
  return wanted;
}

void mark_as_deleting(json::object& object) {
  json::object& meta = metadata_of(object);
  const std::string_view existing = meta_string(object, "deletionTimestamp");
  const std::int64_t now = now_seconds();
  if (existing.empty()) {
    if (auto generation = int_field(meta, "generation"); generation && *generation > 0)
      meta["generation"] = *generation + 1;
  }
  const auto deadline = existing.empty() ? std::nullopt : base::parse_rfc3339(existing);
  if (!deadline || deadline->seconds > now) meta["deletionTimestamp"] = base::format_rfc3339(now);
  meta["deletionGracePeriodSeconds"] = 0;
}

}  // namespace kapi::registry
