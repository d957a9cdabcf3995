#pragma once
// How managers' field sets change on an update and on an apply, and apply's conflicts
// (structured-merge-diff/v4/merge: Updater.Update, Updater.Apply, Conflicts).
#include "server/structured_merge/fieldpath.h"
#include "server/structured_merge/typed.h"

#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace kapi::structured_merge {

// A field an applier wants that another manager owns with a different value.
struct Conflict {
  std::string manager;  // the owner's identifier, as in ManagedFields
  Path path;
};

// Apply's refusal (merge.Conflicts). `what()` is smd's Conflicts.Error text; kube's 409 is made from `conflicts`
// (fieldmanager/internal/conflict.go), not from it.
class Conflicts : public std::runtime_error {
 public:
  explicit Conflicts(std::vector<Conflict> conflicts);
  const std::vector<Conflict>& conflicts() const { return conflicts_; }

 private:
  std::vector<Conflict> conflicts_;
};

// Converts an object to another apiVersion of its kind (merge.Converter), so that managers of different versions
// are compared on one. Throws MissingVersion when the version is not served any more: such managers are dropped.
class Converter {
 public:
  struct MissingVersion : std::runtime_error {
    using std::runtime_error::runtime_error;
  };
  virtual ~Converter() = default;
  virtual TypedValue convert(const TypedValue& object, const std::string& api_version) const = 0;
  // Whether `object` is at `api_version` already, where convert would return it unchanged (kube's versionConverter
  // does): the Updater then uses it as it is instead of a converted copy.
  virtual bool is_at(const TypedValue& /*object*/, const std::string& /*api_version*/) const { return false; }
};

struct UpdaterOptions {
  // Fields no manager owns at a version (the fields a subresource resets: status on the main resource, all but
  // status on /status), by apiVersion (Updater.IgnoredFields).
  std::map<std::string, Set> ignored_fields;
  // Apply returns the input even when nothing changed, instead of std::nullopt (ReturnInputOnNoop).
  bool return_input_on_noop = false;
};

class Updater {
 public:
  Updater(const Converter& converter, UpdaterOptions options);

  // Updater.Update: `manager` (an Update identifier) takes the fields it changed from `live` to `updated`; others
  // lose them. Returns the new managers (smd also returns `updated`, unchanged; kube does not use it).
  ManagedFields update(const TypedValue& live, const TypedValue& updated, const std::string& version,
                       ManagedFields managers, const std::string& manager) const;

  // Updater.Apply: merges `config` into `live` as `manager` (an Apply identifier), removing what it applied last
  // time and stopped applying unless another manager owns it. Throws Conflicts unless `force` (which takes the
  // fields from their owners). The object is std::nullopt when the apply changes nothing (unless
  // return_input_on_noop).
  std::pair<std::optional<TypedValue>, ManagedFields> apply(const TypedValue& live, const TypedValue& config,
                                                            const std::string& version, ManagedFields managers,
                                                            const std::string& manager, bool force) const;

 private:
  const Converter& converter_;
  UpdaterOptions options_;
};

}  // namespace kapi::structured_merge
