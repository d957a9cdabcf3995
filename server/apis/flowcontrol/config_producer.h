#pragma once
// kube's `priority-and-fairness-config-producer` post-start hook (pkg/registry/flowcontrol/rest,
// storage_flowcontrol.go) and its ensurer (pkg/registry/flowcontrol/ensurer): the bootstrap configuration of
// bootstrap_configuration.h is kept in the FlowSchema and PriorityLevelConfiguration stores.
//
// - A missing bootstrap object, mandatory or suggested, is created.
// - A mandatory object always gets its spec back (except spec.exempt of the `exempt` level, the operator's to
//   choose) and the `apf.kubernetes.io/autoupdate-spec: "true"` annotation, whatever the operator set.
// - A suggested object gets the bootstrap spec only while it is auto-updated: its annotation says true, or it has
//   none and its generation is 1 (never changed). Without the annotation it gains one: "true" if so, else "false".
//   An operator who sets "false" keeps their spec, and a deleted suggested object comes back.
// - An object annotated autoupdate-spec "true" whose name is no longer in the bootstrap configuration is deleted.
//
// One pass does the suggested objects, then the mandatory ones, then the removals, as kube's ensure() does; the hook
// retries it each second until it succeeds, then repeats it every minute.
#include "server/registry/store.h"

#include <asio/awaitable.hpp>
#include <boost/json/object.hpp>

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

namespace kapi::base {
class Logger;
}

namespace kapi::apis::apf {

// kube's two ensure strategies: a mandatory object's spec is always restored, a suggested one's only while it
// is auto-updated.
enum class EnsureStrategy { Mandatory, Suggested };

// ensureStrategy.ReviseIfNeeded for a stored object and the bootstrap object of the same name: the object to store
// (`current` with the bootstrap spec and/or the annotation set), or std::nullopt when `current` may stay as it is.
std::optional<boost::json::object> revise_flow_schema(const boost::json::object& current,
                                                      const boost::json::object& bootstrap, EnsureStrategy strategy);
std::optional<boost::json::object> revise_priority_level(const boost::json::object& current,
                                                         const boost::json::object& bootstrap,
                                                         EnsureStrategy strategy);

// RemoveUnwantedObjects' test: `object` is not among `bootstrap` (by name) and its autoupdate-spec annotation parses
// (strconv.ParseBool) as true.
bool is_unwanted(const boost::json::object& object, const std::vector<boost::json::object>& bootstrap);

struct ConfigStores {
  registry::Store& flow_schemas;
  registry::Store& priority_levels;
};

// One pass of kube's ensure(): the suggested priority levels and flow schemas, then the mandatory ones, then the
// removal of unwanted flow schemas and priority levels. Every object is tried; throws ApiError (the first error, with
// how many failed) when any failed, so that the caller retries the pass. What it creates, updates and deletes goes
// to `logger` when there is one.
asio::awaitable<void> ensure_configuration(ConfigStores stores, base::Logger* logger = nullptr);

// The post-start hook: ensure_configuration each second until it succeeds, then `produced()` (the hook has run:
// /readyz may pass), then once a minute, until `stopping` holds true. Failures are logged and retried.
asio::awaitable<void> run_config_producer(ConfigStores stores, std::shared_ptr<const std::atomic<bool>> stopping,
                                          base::Logger& logger, std::function<void()> produced);

}  // namespace kapi::apis::apf
