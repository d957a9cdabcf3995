#pragma once
// The stages of kube's field manager (k8s.io/apimachinery/pkg/util/managedfields/internal): the Manager interface and
// its wrappers, which NewDefaultFieldManager nests as
//   version check → last-applied updater → last-applied manager → skip non-applied → cap managers →
//   build manager info → managedFields updater → strip meta → structured merge.
// Internal to fieldmanager (and its tests, which build other chains as kube's tests do).
//
// Errors are exceptions: structured_merge::Conflicts for apply conflicts, apierrors::ApiError where kube returns a
// Status, std::runtime_error with kube's text where kube returns a plain error (a 500 when it reaches a client).
#include "server/apierrors/errors.h"
#include "server/fieldmanager/managed_fields.h"
#include "server/structured_merge/fieldpath.h"
#include "server/structured_merge/schema.h"
#include "server/structured_merge/typed.h"
#include "server/structured_merge/update.h"

#include <boost/json/object.hpp>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kapi::fieldmanager::internal {

// DefaultMaxUpdateManagers: Update entries beyond it are merged, oldest first, into "ancient-changes".
inline constexpr int kDefaultMaxUpdateManagers = 10;
inline constexpr std::string_view kLastAppliedConfigAnnotation = "kubectl.kubernetes.io/last-applied-configuration";

using Clock = std::function<std::chrono::system_clock::time_point()>;

// What a stage's apply returns; no object when the apply changed nothing.
struct Applied {
  std::optional<boost::json::object> object;
  Managed managed;
};

// kube's internal.Manager. `manager` is the name a client gave until build-manager-info turns it into an identifier.
class Manager {
 public:
  virtual ~Manager() = default;
  // `live`: the stored object (the kind's zero object on create); `updated`: what the write stores, its
  // managedFields already taken out into `managed`. Returns the new managers. `updated` is as given when update
  // returns or throws: the structured merge borrows it (moves it into a typed value and back) rather than copy it.
  // (kube's Update also returns the object, but every stage returns it untouched, so here it is not passed along.)
  virtual Managed update(const boost::json::object& live, boost::json::object& updated, Managed managed,
                         const std::string& manager) const = 0;
  virtual Applied apply(const boost::json::object& live, const boost::json::object& config, Managed managed,
                        const std::string& manager, bool force) const = 0;
};
using ManagerPtr = std::unique_ptr<const Manager>;

// kube's TypeConverter for one kind at one version.
struct KindType {
  std::shared_ptr<const structured_merge::Schema> schema;
  structured_merge::TypeRef type = nullptr;
  std::string api_version;  // "apps/v1"
  std::string kind;

  // ObjectToTyped; throws structured_merge::TypedError, leaving `object` as it was.
  structured_merge::TypedValue to_typed(boost::json::value&& object, bool allow_duplicates) const;
};

struct StructuredMergeOptions {
  KindType type;
  // Converts objects to the versions of older managers; nullptr: none other is served.
  std::shared_ptr<const structured_merge::Converter> converter;
  std::map<std::string, structured_merge::Set> reset_fields;
  std::function<void(boost::json::object&)> defaulter;
};

ManagerPtr structured_merge_manager(StructuredMergeOptions options);
ManagerPtr strip_meta_manager(ManagerPtr inner);
ManagerPtr managed_fields_updater(ManagerPtr inner, Clock clock);
ManagerPtr build_manager_info_manager(ManagerPtr inner, std::string api_version, std::string subresource);
ManagerPtr cap_managers_manager(ManagerPtr inner, int max_update_managers);
// kube's probabilistic skip-non-applied manager at the two probabilities it is used with: 1 (kube's default,
// DefaultTrackOnCreateProbability: creates are tracked) and 0 (NewSkipNonAppliedManager: nothing is tracked before
// the first apply). `new_object` is the kind's zero object (ObjectCreater.New).
ManagerPtr skip_non_applied_manager(ManagerPtr inner, boost::json::object new_object, bool track_on_create);
ManagerPtr last_applied_manager(ManagerPtr inner, KindType type);
ManagerPtr last_applied_updater(ManagerPtr inner);
ManagerPtr version_check_manager(ManagerPtr inner, std::string api_version, std::string kind);

// kube's internal.FieldManager over any chain: managedFields decoded from the request or the live object, the chain
// run, managedFields encoded back. Throws as the stages do (update) or apierrors::ApiError (apply).
class ChainFieldManager {
 public:
  ChainFieldManager(ManagerPtr chain, std::string subresource) : chain_(std::move(chain)), subresource_(std::move(subresource)) {}
  // Update: `updated` gets its managedFields; on an error they are left out of it (then rethrown).
  void update(const boost::json::object& live, boost::json::object& updated, const std::string& manager) const;
  boost::json::object apply(const boost::json::object& live, const boost::json::object& config,
                            const std::string& manager, bool force) const;

 private:
  ManagerPtr chain_;
  std::string subresource_;
};

// NewConflictError: 409 Conflict, "Apply failed with 1 conflict: conflict with \"kubectl\" using v1: .data.a", one
// FieldManagerConflict cause per conflict.
apierrors::Status conflict_error(const std::vector<structured_merge::Conflict>& conflicts);

// Helpers shared by the stages.
void remove_managed_fields(boost::json::object& object);  // RemoveObjectManagedFields
// schema.GroupVersionKind's String() of an object's apiVersion and kind: "apps/v1, Kind=Deployment",
// "/v1, Kind=ConfigMap"; "/, Kind=" when the apiVersion does not parse.
std::string group_version_kind(const boost::json::object& object);
// objectGVKNN: "namespace/name; /v1, Kind=ConfigMap".
std::string object_gvknn(const boost::json::object& object);
// The metadata member `name` of an object when it is a string map (labels, annotations); nullptr otherwise.
const boost::json::object* metadata_map(const boost::json::object& object, std::string_view name);

}  // namespace kapi::fieldmanager::internal
