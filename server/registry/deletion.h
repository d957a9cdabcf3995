#pragma once
// What a DELETE does before anything is removed, as kube's generic registry decides it
// (k8s.io/apiserver/pkg/registry/rest/delete.go's BeforeDelete, and registry/store.go's deletion finalizers and
// markAsDeleting): graceful deletion marks an object that many seconds ahead, the garbage collector's finalizers
// carry the request's propagation policy, and an object with finalizers is only marked as being deleted.
#include "server/registry/strategy.h"

#include <asio/awaitable.hpp>
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kapi::registry {

// metav1's finalizers for the garbage collector: dependents are orphaned first, or deleted first (foreground).
inline constexpr std::string_view kOrphanFinalizer = "orphan";
inline constexpr std::string_view kForegroundDeletionFinalizer = "foregroundDeletion";

struct DeleteOptions {
  bool dry_run = false;
  std::optional<std::string> precondition_uid;
  std::optional<std::string> precondition_resource_version;
  std::optional<std::int64_t> grace_period_seconds;
  std::string propagation_policy;           // "", "Foreground", "Background" or "Orphan"
  std::optional<bool> orphan_dependents;    // the deprecated form of "Orphan"
  // Admission of the deletion (kube's AdmissionToValidateObjectDeleteFunc: mutating then validating plugins,
  // shown the stored object), once the object is read and the preconditions hold. Throws ApiError to refuse.
  std::function<asio::awaitable<void>(const boost::json::object& existing)> admission;
};

struct DeleteResult {
  std::string object;   // the deleted object (or, with finalizers or a grace period, the object marked for deletion)
  bool deleted = true;  // false when only marked
  std::string uid;
};

// rest.BeforeDelete's verdict on one object.
struct GracefulDeletion {
  bool graceful = false;  // the object is marked, `object` changed: deletionTimestamp `period` seconds ahead
  bool pending = false;   // a graceful deletion already runs and this request does not shorten it
  std::int64_t period = 0;
};

// rest.BeforeDelete (after its preconditions, which the Store checks): marks `object` in place for a graceful
// deletion, or shortens one already running. `requested` is the request's grace period, updated as kube updates
// DeleteOptions.GracePeriodSeconds so that a second call on a later state of the object agrees with the first.
GracefulDeletion before_delete(const Strategy& strategy, boost::json::object& object,
                               std::optional<std::int64_t>& requested);

// deletionFinalizersForGarbageCollection: the finalizers `object` should carry so that the garbage collector
// orphans or deletes its dependents as `options` (else its finalizers, else the kind's default) ask; std::nullopt
// when they already do.
std::optional<boost::json::array> garbage_collection_finalizers(const Strategy& strategy,
                                                                const boost::json::object& object,
                                                                const DeleteOptions& options);

// markAsDeleting: deletionTimestamp now (or kept, if earlier), deletionGracePeriodSeconds 0, and a new generation
// for kinds that track one, the first time.
void mark_as_deleting(boost::json::object& object);

bool has_finalizers(const boost::json::object& object);
// Whether metadata.finalizers names `finalizer`.
bool has_finalizer(const boost::json::object& object, std::string_view finalizer);

}  // namespace kapi::registry
