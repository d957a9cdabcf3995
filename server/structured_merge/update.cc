#include "server/structured_merge/update.h"

#include "server/structured_merge/set_schema.h"

#include <stdexcept>
#include <utility>

namespace kapi::structured_merge {
namespace {

using detail::ensure_named_fields_are_members;

// Runs `step`; a failure other than a conflict reads as smd's error for that step does: "<context>: <error>" (kube
// answers such errors as they are).
template <typename Step>
auto in_context(const std::string& context, Step&& step) -> decltype(step()) {
  try {
    return step();
  } catch (const Conflicts&) {
    throw;
  } catch (const std::exception& error) {
    throw std::runtime_error(context + ": " + error.what());
  }
}

// The steps of smd's Updater, over one converter and one set of options.
class UpdaterSteps {
 public:
  UpdaterSteps(const Converter& converter, const UpdaterOptions& options) : converter_(converter), options_(options) {}

  // Converter::convert, or std::nullopt when the version is not served any more.
  std::optional<TypedValue> convert_if_served(const TypedValue& object, const std::string& api_version) const {
    try {
      return converter_.convert(object, api_version);
    } catch (const Converter::MissingVersion&) {
      return std::nullopt;
    }
  }

  TypedValue convert(const TypedValue& object, const std::string& api_version) const {
    return converter_.convert(object, api_version);
  }

  // convert_if_served without a copy when `object` is at the version already: `object` itself, or the converted
  // copy kept in `storage`; nullptr when the version is not served.
  const TypedValue* at_version(const TypedValue& object, const std::string& api_version,
                               std::optional<TypedValue>& storage) const {
    if (converter_.is_at(object, api_version)) return &object;
    storage = convert_if_served(object, api_version);
    return storage ? &*storage : nullptr;
  }

  // The fields that are nobody's at `version` taken out of `set` (the exclude filter of Updater.IgnoreFilter).
  Set without_ignored(const Set& set, const std::string& version) const {
    const Set* ignored = ignored_fields(version);
    return ignored == nullptr ? set : set.recursive_difference(*ignored);
  }

  // Updater.reconcileManagedFieldsWithSchemaChanges: managers whose version is not served any more are dropped.
  void reconcile_with_schema(const TypedValue& live, ManagedFields& managers) const {
    // Managers mostly share a version or two: the live object is converted once per version, not per manager.
    std::map<std::string, std::optional<TypeRef>> type_at_version;
    for (auto it = managers.begin(); it != managers.end();) {
      VersionedSet& versioned = it->second;
      auto [type, inserted] = type_at_version.try_emplace(versioned.api_version);
      if (inserted) {
        std::optional<TypedValue> storage;
        if (const TypedValue* converted = at_version(live, versioned.api_version, storage)) {
          type->second = converted->type;
        }
      }
      if (!type->second) {
        it = managers.erase(it);
        continue;
      }
      if (std::optional<Set> set = detail::reconcile_field_set_with_schema(versioned.set, *type->second)) {
        versioned.set = std::move(*set);
      }
      ++it;
    }
  }

  // Updater.update: every manager but `workflow` loses what changed from `old_object` to `new_object` (compared at
  // its own version); unless `force`, a change to a field another manager owns is a conflict. Returns the change at
  // `version`.
  Comparison take_changed_fields(const TypedValue& old_object, const TypedValue& new_object, const std::string& version,
                                 ManagedFields& managers, const std::string& workflow, bool force) const {
    std::map<std::string, Comparison> by_version;
    Comparison changes_at_version =
        in_context("failed to compare objects", [&] { return compare(old_object, new_object); });
    by_version.emplace(version, exclude_ignored(std::move(changes_at_version), version));

    ManagedFields conflicts;
    std::map<std::string, const Set*> removed;
    for (auto it = managers.begin(); it != managers.end();) {
      // Named, not a structured binding: clang 14 (the fuzz build's) cannot capture one in the lambdas below.
      const std::string& manager = it->first;
      const auto& versioned = it->second;
      if (manager == workflow) {
        ++it;
        continue;
      }
      auto comparison = by_version.find(versioned.api_version);
      if (comparison == by_version.end()) {
        std::optional<TypedValue> old_storage, new_storage;
        const TypedValue* old_at_version = in_context(
            "failed to convert old object", [&] { return at_version(old_object, versioned.api_version, old_storage); });
        const TypedValue* new_at_version =
            old_at_version ? in_context("failed to convert new object",
                                        [&] { return at_version(new_object, versioned.api_version, new_storage); })
                           : nullptr;
        if (!new_at_version) {
          it = managers.erase(it);
          continue;
        }
        Comparison changes = exclude_ignored(
            in_context("failed to compare objects", [&] { return compare(*old_at_version, *new_at_version); }),
            versioned.api_version);
        comparison = by_version.emplace(versioned.api_version, std::move(changes)).first;
      }
      const Comparison& changes = comparison->second;
      Set conflicting = versioned.set.intersection(changes.modified.union_with(changes.added));
      if (!conflicting.empty()) {
        conflicts.emplace(manager, VersionedSet{std::move(conflicting), versioned.api_version, false});
      }
      if (!changes.removed.empty()) removed.emplace(manager, &changes.removed);
      ++it;
    }

    if (!force && !conflicts.empty()) throw Conflicts(conflicts_from_managers(conflicts));
    for (const auto& [manager, versioned] : conflicts) {
      VersionedSet& owned = managers.at(manager);
      owned.set = owned.set.difference(versioned.set);
    }
    for (const auto& [manager, set] : removed) {
      VersionedSet& owned = managers.at(manager);
      owned.set = owned.set.difference(*set);
    }
    std::erase_if(managers, [](const auto& entry) { return entry.second.set.empty(); });
    return std::move(by_version.at(version));
  }

  // Updater.prune: removes what `applier` applied last time and not this time, unless a manager (the applier's new
  // configuration included) owns it or it was never the applier's to begin with.
  TypedValue prune(const TypedValue& merged, const ManagedFields& managers, const std::string& applier,
                   const VersionedSet& last_applied) const {
    std::optional<TypedValue> storage;
    const TypedValue* merged_at_last =
        in_context("failed to convert merged object to last applied version",
                   [&] { return at_version(merged, last_applied.api_version, storage); });
    if (!merged_at_last) return merged;
    TypedValue pruned =
        remove_items(*merged_at_last, ensure_named_fields_are_members(last_applied.set, merged_at_last->type));
    pruned = in_context("failed add back owned items", [&] {
      return add_back_owned_items(*merged_at_last, std::move(pruned), last_applied.api_version, managers);
    });
    pruned = in_context("failed add back dangling items",
                        [&] { return add_back_dangling_items(*merged_at_last, pruned, last_applied); });
    const std::string& applier_version = managers.at(applier).api_version;
    if (converter_.is_at(pruned, applier_version)) return pruned;
    return convert(pruned, applier_version);
  }

 private:
  const Set* ignored_fields(const std::string& version) const {
    auto found = options_.ignored_fields.find(version);
    return found == options_.ignored_fields.end() ? nullptr : &found->second;
  }

  // Comparison.ExcludeFields with the version's ignored fields: what changed there is nobody's.
  Comparison exclude_ignored(Comparison comparison, const std::string& version) const {
    const Set* ignored = ignored_fields(version);
    if (ignored == nullptr || ignored->empty()) return comparison;
    comparison.removed = comparison.removed.recursive_difference(*ignored);
    comparison.modified = comparison.modified.recursive_difference(*ignored);
    comparison.added = comparison.added.recursive_difference(*ignored);
    return comparison;
  }

  // ConflictsFromManagers, in manager then path order.
  static std::vector<Conflict> conflicts_from_managers(const ManagedFields& conflicts) {
    std::vector<Conflict> found;
    for (const auto& entry : conflicts) {
      const std::string& manager = entry.first;  // named for the lambda, as above
      entry.second.set.for_each([&](const Path& path) { found.push_back(Conflict{manager, path}); });
    }
    return found;
  }

  // Updater.addBackOwnedItems: what pruning removed and some manager owns comes back, version by version (the
  // pruned version first: its fields may be what converting to the others needs).
  TypedValue add_back_owned_items(const TypedValue& merged_object, TypedValue pruned, const std::string& pruned_version,
                                  const ManagedFields& managers) const {
    // The merged object at the version being worked on: the given one until a version needs a converted copy.
    const TypedValue* merged = &merged_object;
    std::optional<TypedValue> merged_converted;
    std::map<std::string, Set> owned_at_version;
    for (const auto& [manager, versioned] : managers) {
      Set& owned = owned_at_version[versioned.api_version];
      owned = owned.union_with(versioned.set);
    }
    auto add_back = [&](const std::string& version, const Set& owned) {
      std::optional<TypedValue> merged_storage, pruned_storage;
      const TypedValue* merged_at_version = in_context("failed to convert merged object at version " + version,
                                                       [&] { return at_version(*merged, version, merged_storage); });
      if (!merged_at_version) return;
      if (merged_storage) {
        merged_converted = std::move(merged_storage);
        merged = &*merged_converted;
      }
      const TypedValue* pruned_at_version = in_context("failed to convert pruned object at version " + version,
                                                       [&] { return at_version(pruned, version, pruned_storage); });
      if (!pruned_at_version) return;
      TypeRef type = merged->type;
      Set merged_fields = in_context("failed to create field set from merged object at version " + version,
                                     [&] { return to_field_set(*merged); });
      Set pruned_fields = in_context("failed to create field set from pruned object at version " + version,
                                     [&] { return to_field_set(*pruned_at_version); });
      merged_fields = ensure_named_fields_are_members(merged_fields, type);
      Set kept =
          ensure_named_fields_are_members(pruned_fields, type).union_with(ensure_named_fields_are_members(owned, type));
      pruned = remove_items(*merged, merged_fields.difference(kept));
    };
    if (auto at_pruned = owned_at_version.find(pruned_version); at_pruned != owned_at_version.end()) {
      add_back(at_pruned->first, at_pruned->second);
      owned_at_version.erase(at_pruned);
    }
    for (const auto& [version, owned] : owned_at_version) add_back(version, owned);
    return pruned;
  }

  // Updater.addBackDanglingItems: pruning only removes what the applier owned last time; what it removed beyond
  // that (unowned fields, or fields of updaters) comes back.
  TypedValue add_back_dangling_items(const TypedValue& merged, const TypedValue& pruned,
                                     const VersionedSet& last_applied) const {
    std::optional<TypedValue> storage;
    const TypedValue* pruned_at_last =
        in_context("failed to convert pruned object to last applied version",
                   [&] { return at_version(pruned, last_applied.api_version, storage); });
    if (!pruned_at_last) return merged;
    TypeRef type = merged.type;
    Set pruned_fields = in_context("failed to create field set from pruned object in last applied version",
                                   [&] { return to_field_set(*pruned_at_last); });
    Set merged_fields = in_context("failed to create field set from merged object in last applied version",
                                   [&] { return to_field_set(merged); });
    pruned_fields = ensure_named_fields_are_members(pruned_fields, type);
    merged_fields = ensure_named_fields_are_members(merged_fields, type);
    Set last = ensure_named_fields_are_members(last_applied.set, type);
    return remove_items(merged, merged_fields.difference(pruned_fields).intersection(last));
  }

  const Converter& converter_;
  const UpdaterOptions& options_;
};

}  // namespace

Updater::Updater(const Converter& converter, UpdaterOptions options)
    : converter_(converter), options_(std::move(options)) {}

ManagedFields Updater::update(const TypedValue& live, const TypedValue& updated, const std::string& version,
                              ManagedFields managers, const std::string& manager) const {
  UpdaterSteps steps(converter_, options_);
  steps.reconcile_with_schema(live, managers);
  Comparison changes = steps.take_changed_fields(live, updated, version, managers, manager, /*force=*/true);
  auto [owned, inserted] = managers.try_emplace(manager, VersionedSet{Set(), version, false});
  Set set = owned->second.set.difference(changes.removed).union_with(changes.modified).union_with(changes.added);
  owned->second = VersionedSet{steps.without_ignored(set, version), version, false};
  if (owned->second.set.empty()) managers.erase(owned);
  return managers;
}

std::pair<std::optional<TypedValue>, ManagedFields> Updater::apply(const TypedValue& live, const TypedValue& config,
                                                                   const std::string& version, ManagedFields managers,
                                                                   const std::string& manager, bool force) const {
  UpdaterSteps steps(converter_, options_);
  steps.reconcile_with_schema(live, managers);
  TypedValue merged = in_context("failed to merge config", [&] { return merge(live, config); });
  std::optional<VersionedSet> last_applied;
  if (auto last = managers.find(manager); last != managers.end()) last_applied = last->second;
  Set applied = in_context("failed to get field set", [&] { return to_field_set(config); });
  managers[manager] = VersionedSet{steps.without_ignored(applied, version), version, true};
  if (last_applied && !last_applied->set.empty()) {
    merged =
        in_context("failed to prune fields", [&] { return steps.prune(merged, managers, manager, *last_applied); });
  }
  steps.take_changed_fields(live, merged, version, managers, manager, force);
  // value.Equals: numbers compare as numbers and members in any order, as compare_values has them.
  if (!options_.return_input_on_noop && compare_values(live.value, merged.value) == 0) {
    return {std::nullopt, std::move(managers)};
  }
  return {std::move(merged), std::move(managers)};
}

}  // namespace kapi::structured_merge
