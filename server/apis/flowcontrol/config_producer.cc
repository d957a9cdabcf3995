#include "server/apis/flowcontrol/config_producer.h"

#include "base/log.h"
#include "base/sleep.h"
#include "server/apierrors/errors.h"
#include "server/apis/flowcontrol/flowcontrol_validation.h"
#include "server/flowcontrol/bootstrap_configuration.h"
#include "server/registry/object_meta.h"

#include <boost/json.hpp>

#include <chrono>
#include <string>

namespace kapi::apis::apf {
namespace {

using ::kapi::flowcontrol::kAutoUpdateAnnotation;
using ::kapi::flowcontrol::mandatory_flow_schemas;
using ::kapi::flowcontrol::mandatory_priority_levels;
using ::kapi::flowcontrol::suggested_flow_schemas;
using ::kapi::flowcontrol::suggested_priority_levels;

namespace json = boost::json;

// strconv.ParseBool.
std::optional<bool> parse_bool(std::string_view text) {
  for (std::string_view yes : {"1", "t", "T", "TRUE", "true", "True"})
    if (text == yes) return true;
  for (std::string_view no : {"0", "f", "F", "FALSE", "false", "False"})
    if (text == no) return false;
  return std::nullopt;
}

// The autoupdate-spec annotation, when there is one.
std::optional<std::string> auto_update_annotation(const json::object& object) {
  const json::value* metadata = object.if_contains("metadata");
  const json::value* annotations = metadata && metadata->is_object() ? metadata->get_object().if_contains("annotations")
                                                                      : nullptr;
  const json::value* value =
      annotations && annotations->is_object() ? annotations->get_object().if_contains(kAutoUpdateAnnotation) : nullptr;
  if (!value || !value->is_string()) return std::nullopt;
  return std::string(value->get_string());
}

std::int64_t generation_of(const json::object& object) {
  const json::value* metadata = object.if_contains("metadata");
  const json::value* generation = metadata && metadata->is_object() ? metadata->get_object().if_contains("generation")
                                                                     : nullptr;
  if (generation && generation->is_int64()) return generation->get_int64();
  if (generation && generation->is_uint64()) return static_cast<std::int64_t>(generation->get_uint64());
  return 0;
}

// shouldUpdateSpec: the annotation decides when it is a boolean; without one (or with another value) an object
// whose spec was never changed (generation 1) is still the bootstrap one and may be updated.
bool should_update_spec(const json::object& current) {
  if (auto annotation = auto_update_annotation(current))
    if (auto value = parse_bool(*annotation)) return *value;
  return generation_of(current) == 1;
}

// shouldUpdateAnnotation: unless the annotation already says `desired`.
bool should_update_annotation(const json::object& current, bool desired) {
  if (auto annotation = auto_update_annotation(current))
    if (auto value = parse_bool(*annotation); value && *value == desired) return false;
  return true;
}

using SpecEqualish = bool (*)(const json::object& expected, const json::object& actual);

// ensureStrategy.ReviseIfNeeded, shared by both kinds.
std::optional<json::object> revise(const json::object& current, const json::object& bootstrap,
                                   EnsureStrategy strategy, SpecEqualish equalish) {
  const bool auto_update_spec = strategy == EnsureStrategy::Mandatory || should_update_spec(current);
  const bool update_annotation = should_update_annotation(current, auto_update_spec);
  const bool spec_changed = auto_update_spec && !equalish(bootstrap, current);
  if (!update_annotation && !spec_changed) return std::nullopt;
  json::object revised = current;
  if (spec_changed) {
    if (const json::value* spec = bootstrap.if_contains("spec")) revised["spec"] = *spec;
    else revised.erase("spec");
  }
  if (update_annotation) {
    json::object& metadata = registry::metadata_of(revised);
    json::value& annotations = metadata["annotations"];
    if (!annotations.is_object()) annotations = json::object();
    annotations.get_object()[kAutoUpdateAnnotation] = auto_update_spec ? "true" : "false";
  }
  return revised;
}

std::string name_of(const json::object& object) { return std::string(registry::meta_string(object, "name")); }

struct Kind {
  registry::Store& store;
  std::string_view type_name;  // "FlowSchema", as kube's log lines name it
  std::optional<json::object> (*revise)(const json::object&, const json::object&, EnsureStrategy);
};

// The errors of one pass: every object is tried, the first failure is what the caller sees.
struct Failures {
  std::optional<apierrors::Status> first;
  int count = 0;
  void add(apierrors::Status status) {
    if (!first) first = std::move(status);
    ++count;
  }
  void add(const std::exception& error) { add(apierrors::internal_error(error.what())); }
  void throw_if_any(std::string_view what) const {
    if (!first) return;
    apierrors::Status status = *first;
    status.message = "failed ensuring " + std::string(what) + " (" + std::to_string(count) + " error" +
                     (count == 1 ? "" : "s") + "): " + status.message;
    throw apierrors::ApiError(std::move(status));
  }
};

// EnsureConfiguration of one bootstrap object.
asio::awaitable<void> ensure_one(const Kind& kind, const json::object& bootstrap, EnsureStrategy strategy,
                                 base::Logger* logger) {
  const std::string name = name_of(bootstrap);
  const char* strategy_name = strategy == EnsureStrategy::Mandatory ? "mandatory" : "suggested";
  // From the watch cache first, as kube's ensurer reads its informer's lister: a restart, which finds everything in
  // place, asks storage nothing. After a lost race the object is read from storage, which the cache may lag.
  std::string read_at = "0";
  for (;;) {
    std::optional<json::object> current;
    try {
      auto pending = kind.store.get("", name, read_at);  // no temporaries in a co_await (g++ 12)
      registry::ReadObject read = co_await std::move(pending);
      current = registry::parse_json_object(read.json);
    } catch (const apierrors::ApiError& error) {
      if (error.status().code != 404) throw;
    }
    if (!current) {
      // A missing configuration object is always created again.
      try {
        auto pending = kind.store.create("", bootstrap, registry::WriteOptions{});
        co_await std::move(pending);
        if (logger)
          logger->info("APF: created " + std::string(kind.type_name) + " type=" + strategy_name + " name=\"" + name +
                       "\"");
        co_return;
      } catch (const apierrors::ApiError& error) {
        if (error.status().code != 409) throw;  // created meanwhile: look again
      }
      read_at.clear();
      continue;
    }
    if (!kind.revise(*current, bootstrap, strategy)) co_return;
    // The revision is made again on the latest object should it change meanwhile.
    bool updated = false;
    registry::UpdateFunction update = [&](const json::object* latest) -> json::object {
      if (!latest) throw apierrors::ApiError(apierrors::not_found(kind.store.definition().group,
                                                                  kind.store.definition().resource, name));
      std::optional<json::object> revised = kind.revise(*latest, bootstrap, strategy);
      updated = revised.has_value();
      return revised ? std::move(*revised) : *latest;
    };
    try {
      auto pending = kind.store.update("", name, std::move(update), registry::WriteOptions{});
      co_await std::move(pending);
    } catch (const apierrors::ApiError& error) {
      if (error.status().code != 404) throw;
      read_at.clear();
      continue;  // deleted meanwhile: create it
    }
    if (updated && logger)
      logger->info("APF: updated " + std::string(kind.type_name) + " type=" + strategy_name + " name=\"" + name + "\"");
    co_return;
  }
}

// EnsureConfigurations: each of `bootstrap`, whatever happens to the others.
asio::awaitable<void> ensure_all(const Kind& kind, const std::vector<json::object>& bootstrap, EnsureStrategy strategy,
                                 Failures& failures, base::Logger* logger) {
  for (const auto& object : bootstrap) {
    try {
      auto pending = ensure_one(kind, object, strategy, logger);
      co_await std::move(pending);
    } catch (const apierrors::ApiError& error) {
      failures.add(error.status());
    } catch (const std::exception& error) {
      failures.add(error);
    }
  }
}

// RemoveUnwantedObjects.
asio::awaitable<void> remove_unwanted(const Kind& kind, const std::vector<json::object>& bootstrap, Failures& failures,
                                      base::Logger* logger) {
  registry::ObjectList list;
  try {
    auto pending = kind.store.list("", registry::ListRequest{});
    list = co_await std::move(pending);
  } catch (const apierrors::ApiError& error) {
    failures.add(error.status());
    co_return;
  }
  for (const auto& item : list.items) {
    std::optional<json::object> object = registry::parse_json_object(item.json);
    if (!object || !is_unwanted(*object, bootstrap)) continue;
    const std::string name = name_of(*object);
    try {
      auto pending = kind.store.remove("", name, registry::DeleteOptions{});
      co_await std::move(pending);
      if (logger) logger->info("APF: deleted the unwanted " + std::string(kind.type_name) + " name=\"" + name + "\"");
    } catch (const apierrors::ApiError& error) {
      if (error.status().code != 404) failures.add(error.status());  // deleted meanwhile is as good
    }
  }
}

std::vector<json::object> joined(std::vector<json::object> first, const std::vector<json::object>& second) {
  first.insert(first.end(), second.begin(), second.end());
  return first;
}

}  // namespace

std::optional<json::object> revise_flow_schema(const json::object& current, const json::object& bootstrap,
                                               EnsureStrategy strategy) {
  return revise(current, bootstrap, strategy, flow_schema_spec_equalish);
}

std::optional<json::object> revise_priority_level(const json::object& current, const json::object& bootstrap,
                                                  EnsureStrategy strategy) {
  return revise(current, bootstrap, strategy, priority_level_spec_equalish);
}

bool is_unwanted(const json::object& object, const std::vector<json::object>& bootstrap) {
  const std::string name = name_of(object);
  for (const auto& wanted : bootstrap)
    if (registry::meta_string(wanted, "name") == name) return false;
  // Without the annotation it is the operator's own object; with a malformed one it is left for the operator too.
  auto annotation = auto_update_annotation(object);
  if (!annotation) return false;
  auto value = parse_bool(*annotation);
  return value && *value;
}

asio::awaitable<void> ensure_configuration(ConfigStores stores, base::Logger* logger) {
  const Kind priority_levels{stores.priority_levels, "PriorityLevelConfiguration", revise_priority_level};
  const Kind flow_schemas{stores.flow_schemas, "FlowSchema", revise_flow_schema};
  // Named, not temporaries: the coroutines below hold references to them until they finish.
  const std::vector<json::object> suggested_levels = suggested_priority_levels();
  const std::vector<json::object> suggested_schemas = suggested_flow_schemas();
  const std::vector<json::object> mandatory_levels = mandatory_priority_levels();
  const std::vector<json::object> mandatory_schemas = mandatory_flow_schemas();
  {
    // The mandatory objects are not tried when the suggested ones failed, as in kube.
    Failures failures;
    auto levels = ensure_all(priority_levels, suggested_levels, EnsureStrategy::Suggested, failures, logger);
    co_await std::move(levels);
    auto schemas = ensure_all(flow_schemas, suggested_schemas, EnsureStrategy::Suggested, failures, logger);
    co_await std::move(schemas);
    failures.throw_if_any("suggested settings");
  }
  {
    Failures failures;
    auto levels = ensure_all(priority_levels, mandatory_levels, EnsureStrategy::Mandatory, failures, logger);
    co_await std::move(levels);
    auto schemas = ensure_all(flow_schemas, mandatory_schemas, EnsureStrategy::Mandatory, failures, logger);
    co_await std::move(schemas);
    failures.throw_if_any("mandatory settings");
  }
  {
    Failures failures;
    const std::vector<json::object> all_schemas = joined(mandatory_schemas, suggested_schemas);
    const std::vector<json::object> all_levels = joined(mandatory_levels, suggested_levels);
    auto schemas = remove_unwanted(flow_schemas, all_schemas, failures, logger);
    co_await std::move(schemas);
    auto levels = remove_unwanted(priority_levels, all_levels, failures, logger);
    co_await std::move(levels);
    failures.throw_if_any("the removal of unwanted settings");
  }
}

asio::awaitable<void> run_config_producer(ConfigStores stores, std::shared_ptr<const std::atomic<bool>> stopping,
                                          base::Logger& logger, std::function<void()> produced) {
  bool done = false;
  while (!stopping->load()) {
    std::string failure;
    try {
      auto pending = ensure_configuration(stores, &logger);
      co_await std::move(pending);
    } catch (const apierrors::ApiError& error) {
      failure = error.status().message;
    } catch (const std::exception& error) {
      failure = error.what();
    }
    if (!failure.empty()) {
      logger.warning("APF bootstrap ensurer ran into error, will retry later: " + failure);
    } else if (!done) {
      done = true;
      logger.info("APF: the bootstrap configuration is in place");
      produced();
    }
    // Until the first pass succeeds every second (kube polls so for up to 5 minutes), then every minute.
    co_await base::sleep_for(done ? std::chrono::steady_clock::duration(std::chrono::minutes(1))
                                  : std::chrono::steady_clock::duration(std::chrono::seconds(1)));
  }
}

}  // namespace kapi::apis::apf
