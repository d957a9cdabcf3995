// scheduling.k8s.io/v1 PriorityClass (pkg/registry/scheduling/priorityclass: strategy.go, storage.go's Delete and
// rest/storage_scheduling.go's bootstrap hook; pkg/apis/scheduling/validation ValidatePriorityClass and
// ValidatePriorityClassUpdate; printers.printPriorityClass).
#include "server/apis/scheduling/scheduling.h"

#include "base/log.h"
#include "base/sleep.h"
#include "server/apierrors/errors.h"
#include "server/lifecycle.h"
#include "server/registry/json_fields.h"
#include "server/registry/object_meta.h"
#include "server/registry/reflector.h"

#include <array>

namespace kapi::apis {
namespace {

namespace json = boost::json;
using namespace registry::fields;
using validation::Path;

// scheduling.HighestUserDefinablePriority; system classes sit above it.
constexpr std::int64_t kHighestUserDefinablePriority = 1000000000;
constexpr std::int64_t kSystemCriticalPriority = 2 * kHighestUserDefinablePriority;
constexpr std::string_view kSystemPrefix = "system-";

struct SystemPriorityClass {
  std::string_view name;
  std::int64_t value;
  std::string_view description;
};

constexpr std::array<SystemPriorityClass, 2> kSystemPriorityClasses{{
    {"system-node-critical", kSystemCriticalPriority + 1000,
     "Used for system critical pods that must not be moved from their current node."},
    {"system-cluster-critical", kSystemCriticalPriority,
     "Used for system critical pods that must run in the cluster, but can be moved to another node if necessary."},
}};

// IsKnownSystemPriorityClass: why a "system-" class is not one of kube's, or "" when it is.
std::string unknown_system_class(std::string_view name, std::int64_t value, bool global_default) {
  for (const auto& known : kSystemPriorityClasses) {
    if (known.name != name) continue;
    if (known.value != value)
      return "value of " + std::string(name) + " PriorityClass must be " + std::to_string(known.value);
    if (global_default) return "globalDefault of " + std::string(name) + " PriorityClass must be false";
    return "";
  }
  return std::string(name) + " is not a known system priority class";
}

class PriorityClassStrategy final : public registry::Strategy {
 public:
  explicit PriorityClassStrategy(std::shared_ptr<const DefaultPriorityClasses> defaults)
      : defaults_(std::move(defaults)) {}

  // The Priority admission plugin's validatePriorityClass: one default at a time.
  void authorize_write(const request::UserInfo& /*user*/, const json::object& object,
                       const json::object* old) const override {
    if (!defaults_ || !bool_at(object, "globalDefault")) return;
    const std::optional<std::string> existing = defaults_->lowest();
    const std::string_view name = registry::meta_string(object, "name");
    if (existing && (!old || *existing != name))
      throw apierrors::ApiError(apierrors::forbidden(
          "scheduling.k8s.io", "priorityclasses", name,
          "PriorityClass " + *existing + " is already marked as default. Only one default can exist"));
  }
  validation::ErrorList validate(const json::object& object) const override {
    validation::ErrorList errors;
    const std::string_view name = registry::meta_string(object, "name");
    const std::int64_t value = int_at(object, "value").value_or(0);
    if (name.substr(0, kSystemPrefix.size()) == kSystemPrefix) {
      if (std::string why = unknown_system_class(name, value, bool_at(object, "globalDefault")); !why.empty())
        errors.push_back(validation::forbidden(
            Path("metadata").child("name"),
            "priority class names with '" + std::string(kSystemPrefix) +
                "' prefix are reserved for system use only. error: " + why));
    } else if (value > kHighestUserDefinablePriority) {
      errors.push_back(validation::forbidden(
          Path("value"), "maximum allowed value of a user defined priority is " +
                             std::to_string(kHighestUserDefinablePriority)));
    }
    if (object.contains("preemptionPolicy")) {
      std::string_view policy = string_at(object, "preemptionPolicy");
      if (policy.empty())
        errors.push_back(validation::required(Path("preemptionPolicy")));
      else if (policy != "PreemptLowerPriority" && policy != "Never")
        errors.push_back(validation::not_supported(Path("preemptionPolicy"), policy, {"PreemptLowerPriority", "Never"}));
    }
    return errors;
  }
  validation::ErrorList validate_update(const json::object& object, const json::object& old) const override {
    validation::ErrorList errors = validate(object);
    if (int_at(object, "value") != int_at(old, "value"))
      errors.push_back(validation::forbidden(Path("value"), "may not be changed in an update."));
    const json::value* policy = object.if_contains("preemptionPolicy");
    const json::value* old_policy = old.if_contains("preemptionPolicy");
    if (!((!policy && !old_policy) || (policy && old_policy && *policy == *old_policy)))
      errors.push_back(validation::invalid(Path("preemptionPolicy"), string_at(object, "preemptionPolicy"),
                                           "field is immutable"));
    return errors;
  }
  // kube's REST.Delete: the system classes stay.
  std::optional<json::object> mark_for_deletion(const json::object& current,
                                                std::optional<std::int64_t> /*grace_period_seconds*/) const override {
    const std::string_view name = registry::meta_string(current, "name");
    for (const auto& known : kSystemPriorityClasses)
      if (known.name == name)
        throw apierrors::ApiError(apierrors::forbidden("scheduling.k8s.io", "priorityclasses", name,
                                                       "this is a system priority class and cannot be deleted"));
    return std::nullopt;
  }

  std::vector<registry::TableColumn> table_columns() const override {
    return {registry::name_column(),
            {"Value", "integer", "",
             "value represents the integer value of this priority class. This is the actual priority that pods "
             "receive when they have the name of this class in their pod spec.",
             0},
            {"Global-Default", "boolean", "",
             "globalDefault specifies whether this PriorityClass should be considered as the default priority for pods "
             "that do not have any priority class. Only one PriorityClass can be marked as `globalDefault`. However, if "
             "more than one PriorityClasses exists with their `globalDefault` field set to true, the smallest value of "
             "such global default PriorityClasses will be used as the default priority.",
             0},
            registry::age_column(),
            {"PreemptionPolicy", "string", "",
             "preemptionPolicy is the Policy for preempting pods with lower priority. One of Never, "
             "PreemptLowerPriority. Defaults to PreemptLowerPriority if unset.",
             0}};
  }
  json::array table_cells(const json::object& object) const override {
    return {json::string(registry::meta_string(object, "name")), int_at(object, "value").value_or(0),
            bool_at(object, "globalDefault"), json::string(registry::age_of(object)),
            json::string(string_at(object, "preemptionPolicy"))};
  }

 private:
  std::shared_ptr<const DefaultPriorityClasses> defaults_;
};

}  // namespace

void DefaultPriorityClasses::replace(std::map<std::string, std::int64_t> defaults) {
  std::lock_guard lock(mutex_);
  defaults_ = std::move(defaults);
}

void DefaultPriorityClasses::set(const std::string& name, std::optional<std::int64_t> value) {
  std::lock_guard lock(mutex_);
  if (value) defaults_[name] = *value;
  else defaults_.erase(name);
}

std::optional<std::string> DefaultPriorityClasses::lowest() const {
  std::lock_guard lock(mutex_);
  std::optional<std::string> found;
  std::int64_t lowest_value = 0;
  for (const auto& [name, value] : defaults_)
    if (!found || value < lowest_value) {
      found = name;
      lowest_value = value;
    }
  return found;
}

asio::awaitable<void> follow_default_priority_classes(registry::Store& priority_classes,
                                                      std::shared_ptr<DefaultPriorityClasses> defaults,
                                                      std::shared_ptr<const std::atomic<bool>> stopping,
                                                      base::Logger& logger) {
  registry::ReflectorHandlers handlers;
  handlers.replace = [defaults](std::vector<json::object> stored, storage::Revision) -> asio::awaitable<void> {
    std::map<std::string, std::int64_t> found;
    for (const auto& object : stored)
      if (bool_at(object, "globalDefault"))
        found[std::string(registry::meta_string(object, "name"))] = int_at(object, "value").value_or(0);
    defaults->replace(std::move(found));
    co_return;
  };
  handlers.apply = [defaults](const storage::WatchEvent& event, json::object object) -> asio::awaitable<void> {
    const bool is_default = event.type != storage::WatchEventType::Deleted && bool_at(object, "globalDefault");
    defaults->set(std::string(registry::meta_string(object, "name")),
                  is_default ? std::optional<std::int64_t>(int_at(object, "value").value_or(0)) : std::nullopt);
    co_return;
  };
  registry::ReflectorOptions options{"the default PriorityClasses"};
  auto following = registry::reflect(priority_classes, std::move(handlers), std::move(options), std::move(stopping), logger);
  co_await std::move(following);
}

ResourceStorage priorityclasses() { return priorityclasses(nullptr); }

ResourceStorage priorityclasses(std::shared_ptr<const DefaultPriorityClasses> defaults) {
  registry::ResourceDefinition definition{.group = "scheduling.k8s.io", .version = "v1", .resource = "priorityclasses",
                                          .kind = "PriorityClass", .singular = "priorityclass", .namespaced = false,
                                          .short_names = {"pc"}, .storage_resource = "priorityclasses"};
  return {std::move(definition), std::make_shared<PriorityClassStrategy>(std::move(defaults))};
}

asio::awaitable<void> ensure_system_priority_classes(registry::Store& priority_classes,
                                                     const server::Lifecycle& lifecycle, base::Logger& logger,
                                                     std::shared_ptr<std::atomic<bool>> done) {
  for (const auto& known : kSystemPriorityClasses) {
    while (!lifecycle.shutdown_initiated()) {
      bool stored = false;
      try {
        json::object object{{"apiVersion", "scheduling.k8s.io/v1"},
                            {"kind", "PriorityClass"},
                            {"metadata", json::object{{"name", known.name}}},
                            {"value", known.value},
                            {"description", known.description},
                            {"preemptionPolicy", "PreemptLowerPriority"}};
        registry::WriteOptions options;
        auto creating = priority_classes.create("", std::move(object), options);
        co_await std::move(creating);
        logger.info("created PriorityClass " + std::string(known.name) + " with value " + std::to_string(known.value));
        stored = true;
      } catch (const apierrors::ApiError& error) {
        stored = error.status().code == 409;  // kept as it is, as kube keeps it
        if (!stored) logger.warning("creating PriorityClass " + std::string(known.name) + " failed, retrying: " +
                                    error.status().message);
      } catch (const std::exception& error) {
        logger.warning("creating PriorityClass " + std::string(known.name) + " failed, retrying: " + error.what());
      }
      if (stored) break;
      co_await base::sleep_for(std::chrono::seconds(1));
    }
  }
  done->store(!lifecycle.shutdown_initiated());
}

}  // namespace kapi::apis
