// ResourceQuota (k8s.io/apiserver/pkg/admission/plugin/resourcequota: admission.go, controller.go), as of
// release-1.32. A create (or an update that changes usage) in a namespace with quotas is charged to every quota
// that matches it: refused when a quota's status.hard would be exceeded, else each quota's status.used is raised
// with an optimistic write on the quota's resourceVersion, retried on conflicts. kube batches the requests of a
// namespace in one worker to lower those conflicts; here each request retries for itself, which keeps the same
// guarantee (no charge is lost, no quota is exceeded).
#include "server/plugin/admission/resourcequota/admission.h"

#include "server/admission/errors.h"
#include "server/admission/plugin.h"
#include "server/apierrors/errors.h"
#include "server/registry/json_fields.h"
#include "server/registry/object_meta.h"
#include "server/registry/store.h"

#include <boost/json.hpp>

#include <algorithm>
#include <set>

namespace kapi::admission {
namespace quota {
namespace {

namespace json = boost::json;
using registry::fields::object_at;

ResourceList status_list(const json::object& quota, std::string_view key) {
  return parse_list(object_at(object_at(quota, "status"), key));
}

// hasUsageStats: every limited resource the evaluator measures has a usage.
bool has_usage_stats(const json::object& quota, const std::vector<std::string>& resources) {
  const ResourceList used = status_list(quota, "used");
  const json::object* hard = object_at(object_at(quota, "status"), "hard");
  if (!hard) return true;
  for (const auto& [name, value] : *hard)
    if (contains(resources, name) && !used.contains(name)) return false;
  return true;
}

// Go's %v of a []ScopedResourceSelectorRequirement: "[{PriorityClass In [a b]}]".
std::string scopes_literal(const std::vector<ScopeRequirement>& scopes) {
  std::string out = "[";
  for (const auto& scope : scopes) {
    std::string values;
    for (const auto& value : scope.values) values += (values.empty() ? "" : " ") + value;
    out += (out.size() > 1 ? " " : "") + std::string("{") + scope.scope_name + " " + scope.op + " [" + values + "]}";
  }
  return out + "]";
}

}  // namespace

std::vector<LimitedResource> limited_resources(const json::value* configuration) {
  std::vector<LimitedResource> out;
  if (!configuration || !configuration->is_object()) return out;
  const json::array* entries = registry::fields::array_at(configuration->get_object(), "limitedResources");
  if (!entries) return out;
  for (const auto& entry : *entries) {
    if (!entry.is_object()) continue;
    const json::object& limited = entry.get_object();
    LimitedResource resource{std::string(registry::fields::string_at(limited, "apiGroup")),
                             std::string(registry::fields::string_at(limited, "resource")),
                             registry::fields::strings_at(limited, "matchContains"),
                             {}};
    if (const json::array* scopes = registry::fields::array_at(limited, "matchScopes"))
      for (const auto& scope : *scopes)
        if (scope.is_object())
          resource.match_scopes.push_back({std::string(registry::fields::string_at(scope.get_object(), "scopeName")),
                                           std::string(registry::fields::string_at(scope.get_object(), "operator")),
                                           registry::fields::strings_at(scope.get_object(), "values")});
    out.push_back(std::move(resource));
  }
  return out;
}

std::vector<QuotaCharge> check_request(const std::vector<json::object>& quotas, const Attributes& attributes,
                                       const Evaluator& evaluator, const std::vector<LimitedResource>& limited) {
  const json::object& object = attributes.new_object();
  // What the configuration requires a covering quota for: the scopes of every entry the object is in, and the
  // resources of the entries for its kind that it consumes.
  std::vector<ScopeRequirement> limited_scopes;
  std::vector<std::string> limited_names;
  for (const LimitedResource& entry : limited) {
    for (const ScopeRequirement& scope : entry.match_scopes)
      if (evaluator.matches_scope(scope, object)) limited_scopes.push_back(scope);
    if (entry.group != attributes.resource.group || entry.resource != attributes.resource.resource) continue;
    for (const auto& [name, quantity] : evaluator.usage(object)) {
      if (quantity.nanos <= 0) continue;
      const bool matched = std::ranges::any_of(entry.match_contains, [&name](const std::string& part) {
        return name.find(part) != std::string::npos;
      });
      if (matched) limited_names.push_back(name);
    }
  }

  std::vector<std::size_t> interesting;
  std::vector<std::string> restricted_resources;  // of every matching quota
  std::vector<std::string> restricted_scopes;      // the names of the quotas' scopes the object is in
  for (std::size_t i = 0; i < quotas.size(); ++i) {
    const json::object& quota = quotas[i];
    for (const ScopeRequirement& scope : scope_requirements(quota))
      if (evaluator.matches_scope(scope, object)) restricted_scopes.push_back(scope.scope_name);
    if (!matches(evaluator, quota, object)) continue;
    const std::string name(registry::meta_string(quota, "name"));
    const std::vector<std::string> restricted = evaluator.matching_resources(names(status_list(quota, "hard")));
    if (std::optional<std::string> unmet = evaluator.constraints(restricted, object))
      throw forbidden(attributes, "failed quota: " + name + ": " + *unmet);
    if (!has_usage_stats(quota, restricted))
      throw forbidden(attributes, "status unknown for quota: " + name + ", resources: " + pretty_names(restricted));
    interesting.push_back(i);
    restricted_resources.insert(restricted_resources.end(), restricted.begin(), restricted.end());
  }

  const ResourceList input = evaluator.usage(object);
  if (std::vector<std::string> below_zero = negative(input); !below_zero.empty())
    throw forbidden(attributes, "quota usage is negative for resource(s): " + pretty_names(below_zero));
  // An update is charged what it adds to the quotas the stored object was already in; an update that creates (no
  // stored version), or moves the object into a quota's scopes, is charged in full.
  std::optional<ResourceList> added;
  const json::object* previous = attributes.old_object;
  if (attributes.operation == Operation::Update) {
    if (!previous)
      throw forbidden(attributes, "unable to get previous usage since prior version of object was not found");
    if (!registry::meta_string(*previous, "resourceVersion").empty())
      added = subtract_non_negative(input, evaluator.usage(*previous));
  }
  std::vector<std::pair<std::size_t, ResourceList>> deltas;
  for (std::size_t index : interesting) {
    ResourceList delta = remove_zeros(added && matches(evaluator, quotas[index], *previous) ? *added : input);
    if (!delta.empty()) deltas.emplace_back(index, std::move(delta));
  }
  if (!interesting.empty() ? deltas.empty() : remove_zeros(added ? *added : input).empty()) return {};

  std::vector<std::string> uncovered;
  for (const auto& name : limited_names)
    if (!contains(restricted_resources, name) && !contains(uncovered, name)) uncovered.push_back(name);
  if (!uncovered.empty())
    throw forbidden(attributes, "insufficient quota to consume: " + pretty_names(uncovered));
  std::vector<ScopeRequirement> uncovered_scopes;
  for (const ScopeRequirement& scope : limited_scopes)
    if (!contains(restricted_scopes, scope.scope_name)) uncovered_scopes.push_back(scope);
  if (!uncovered_scopes.empty()) {
    // kube returns this one as a plain error, which reaches the client as a 500 without a reason.
    apierrors::Status status;
    status.code = 500;
    status.message = "insufficient quota to match these scopes: " + scopes_literal(uncovered_scopes);
    throw apierrors::ApiError(std::move(status));
  }

  std::vector<QuotaCharge> charges;
  for (const auto& [index, delta] : deltas) {
    const json::object& quota = quotas[index];
    const ResourceList hard = status_list(quota, "hard");
    const ResourceList used = status_list(quota, "used");
    const ResourceList requested = mask(delta, names(hard));
    const ResourceList new_used = add(used, requested);
    const std::vector<std::string> exceeded = exceeding(mask(new_used, names(requested)), hard);
    if (!exceeded.empty())
      throw forbidden(attributes, "exceeded quota: " + std::string(registry::meta_string(quota, "name")) +
                                      ", requested: " + pretty(mask(requested, exceeded)) +
                                      ", used: " + pretty(mask(used, exceeded)) +
                                      ", limited: " + pretty(mask(hard, exceeded)));
    charges.push_back({index, new_used});
  }
  return charges;
}

}  // namespace quota

namespace {

namespace json = boost::json;

// kube gives up on a namespace's quotas after this many lost races and fails the request.
constexpr int kMaxConflicts = 10;

bool is_namespace_creation(const Attributes& attributes) {
  return attributes.operation == Operation::Create && attributes.kind.group.empty() &&
         attributes.kind.kind == "Namespace";
}

std::vector<json::object> parse_quotas(const registry::ObjectList& list, const std::set<std::string>& skip) {
  std::vector<json::object> quotas;
  for (const auto& item : list.items) {
    std::optional<json::object> quota = registry::parse_json_object(item.json);
    if (quota && !skip.contains(std::string(registry::meta_string(*quota, "name")))) quotas.push_back(std::move(*quota));
  }
  return quotas;
}

class ResourceQuota final : public Plugin {
 public:
  ResourceQuota(registry::Store* quotas, std::vector<quota::LimitedResource> limited)
      : quotas_(quotas), limited_(std::move(limited)) {}

  bool handles(const Attributes& attributes) const override {
    if (!quotas_ || !attributes.is_main_resource() || attributes.namespace_.empty()) return false;
    if (is_namespace_creation(attributes) || !attributes.object) return false;
    if (quota::ignored_resource(attributes.resource.group, attributes.resource.resource)) return false;
    return quota::evaluator_for(attributes.resource.group, attributes.resource.resource)->handles(attributes);
  }
  bool validates() const override { return true; }

  asio::awaitable<void> validate(const Attributes& attributes) override {
    // The watch cache first: a namespace without quotas (the common case) costs no read of storage. A stale quota
    // read there loses its write below and is read again from storage.
    registry::ListRequest cached{.resource_version = "0"};
    registry::ObjectList listed = co_await quotas_->list(attributes.namespace_, std::move(cached));
    std::set<std::string> charged;  // quotas already written: a retry charges only the others
    bool live_read = false;
    std::unique_ptr<quota::Evaluator> evaluator;  // made once a quota or limited resource needs it
    for (int conflicts = 0;; ++conflicts) {
      std::vector<json::object> quotas = parse_quotas(listed, charged);
      if (quotas.empty() && limited_.empty()) co_return;
      if (!evaluator) evaluator = quota::evaluator_for(attributes.resource.group, attributes.resource.resource);
      std::vector<quota::QuotaCharge> charges;
      bool refused_on_cache = false;
      try {
        charges = quota::check_request(quotas, attributes, *evaluator, limited_);
      } catch (const apierrors::ApiError&) {
        // The cache may not have seen the usage given back (or the status measured) a moment ago: a refusal is
        // only given on quotas as stored.
        if (live_read) throw;
        refused_on_cache = true;
      }
      if (refused_on_cache) {
        registry::ListRequest live{.resource_version = ""};
        listed = co_await quotas_->list(attributes.namespace_, std::move(live));
        live_read = true;
        continue;
      }
      if (attributes.dry_run) co_return;
      bool lost_race = false;
      for (const quota::QuotaCharge& charge : charges) {
        const json::object& stored = quotas[charge.index];
        std::string name(registry::meta_string(stored, "name"));
        const bool written = co_await charge_quota(attributes.namespace_, name, stored, charge.used);
        if (written) charged.insert(std::move(name));
        else lost_race = true;
      }
      if (!lost_race) co_return;
      if (conflicts == kMaxConflicts)
        throw apierrors::ApiError(apierrors::internal_error("resource quota evaluation timed out"));
      registry::ListRequest live{.resource_version = ""};
      listed = co_await quotas_->list(attributes.namespace_, std::move(live));
      live_read = true;
    }
  }

 private:
  // Writes the quota's new status.used if the quota is still the version read; false when it changed meanwhile.
  asio::awaitable<bool> charge_quota(const std::string& namespace_, const std::string& name,
                                     const json::object& stored, const quota::ResourceList& used) {
    const json::object* status = registry::fields::object_at(stored, "status");
    json::object used_json = quota::to_json(used);
    if (status && status->contains("used") && status->at("used") == json::value(used_json)) co_return true;
    json::object updated = stored;  // with the resourceVersion read: a precondition of the write
    registry::fields::ensure_object(updated, "status")["used"] = std::move(used_json);
    registry::UpdateFunction update = [&updated](const json::object* current) -> json::object {
      if (!current) throw apierrors::ApiError(apierrors::conflict("", "resourcequotas", "", "the quota is gone"));
      return updated;
    };
    registry::WriteOptions options;
    options.subresource = "status";
    bool conflicted = false;
    try {
      auto pending = quotas_->update(namespace_, name, std::move(update), std::move(options));
      co_await std::move(pending);
    } catch (const apierrors::ApiError& error) {
      // Changed meanwhile, or deleted: the quotas are read again.
      if (error.status().code != 409 && error.status().code != 404) throw;
      conflicted = true;
    }
    co_return !conflicted;
  }

  registry::Store* quotas_;
  std::vector<quota::LimitedResource> limited_;
};

}  // namespace

std::unique_ptr<Plugin> make_resource_quota(const PluginContext& context) {
  return std::make_unique<ResourceQuota>(context.stores ? context.stores("", "resourcequotas") : nullptr,
                                         quota::limited_resources(context.configuration));
}

}  // namespace kapi::admission
