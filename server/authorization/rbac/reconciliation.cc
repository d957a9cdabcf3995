#include "server/authorization/rbac/reconciliation.h"

#include "server/apierrors/errors.h"
#include "server/authorization/rbac/bootstrap_policy.h"
#include "server/authorization/rbac/escalation.h"
#include "server/authorization/rbac/policy.h"
#include "server/registry/json_fields.h"
#include "server/registry/object_meta.h"

#include <asio/experimental/awaitable_operators.hpp>
#include <boost/json.hpp>

#include <algorithm>
#include <charconv>

namespace kapi::authorization::rbac {
namespace {

namespace json = boost::json;

using registry::fields::array_or_empty;
using registry::fields::object_or_empty;

bool is_protected(const json::object& existing) {
  const json::value* value = object_or_empty(object_or_empty(existing, "metadata"), "annotations")
                                 .if_contains("rbac.authorization.kubernetes.io/autoupdate");
  return value && value->is_string() && value->get_string() == "false";
}

// kube's merge(expected, existing): the expected entries, overridden by the existing ones. True when that added any.
bool merge_into(json::object& metadata, const json::object& expected_metadata, std::string_view key) {
  const json::object& expected = object_or_empty(expected_metadata, key);
  json::object merged = object_or_empty(metadata, key);
  bool added = false;
  for (const auto& [name, value] : expected)
    if (!merged.contains(name)) {
      merged[name] = value;
      added = true;
    }
  if (added) metadata[key] = std::move(merged);
  return added;
}

bool merge_metadata(json::object& result, const json::object& expected) {
  json::value& metadata = result["metadata"];
  if (!metadata.is_object()) metadata = json::object();
  const json::object& expected_metadata = object_or_empty(expected, "metadata");
  const bool annotations = merge_into(metadata.get_object(), expected_metadata, "annotations");
  const bool labels = merge_into(metadata.get_object(), expected_metadata, "labels");
  return annotations || labels;
}

json::array strings(const std::vector<std::string>& list) {
  json::array out;
  for (const auto& item : list) out.emplace_back(item);
  return out;
}

// rbacv1.PolicyRule as Go encodes it: verbs always, the other lists when not empty.
json::object rule_json(const PolicyRule& rule) {
  json::object out{{"verbs", strings(rule.verbs)}};
  if (!rule.api_groups.empty()) out["apiGroups"] = strings(rule.api_groups);
  if (!rule.resources.empty()) out["resources"] = strings(rule.resources);
  if (!rule.resource_names.empty()) out["resourceNames"] = strings(rule.resource_names);
  if (!rule.non_resource_urls.empty()) out["nonResourceURLs"] = strings(rule.non_resource_urls);
  return out;
}

const json::array& selectors_of(const json::object& role) {
  return array_or_empty(object_or_empty(role, "aggregationRule"), "clusterRoleSelectors");
}

bool contains(const json::array& list, const json::value& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

// Subjects and roleRefs compare field by field, an absent field as "".
json::object normalized(const json::object& reference, std::initializer_list<std::string_view> fields) {
  json::object out;
  for (auto field : fields) {
    const json::value* value = reference.if_contains(field);
    out[field] = value && value->is_string() ? value->get_string() : json::string();
  }
  return out;
}

json::object subject_key(const json::value& subject) {
  return subject.is_object() ? normalized(subject.get_object(), {"kind", "apiGroup", "name", "namespace"}) : json::object();
}

storage::Revision stored_revision(std::string_view stored) {
  storage::Revision revision = 0;
  if (auto object = registry::parse_json_object(stored)) {
    std::string_view text = registry::meta_string(*object, "resourceVersion");
    std::from_chars(text.data(), text.data() + text.size(), revision);
  }
  return revision;
}

// The stored object, or std::nullopt when there is none; read at `resource_version` ("0": from the watch cache,
// "": from storage).
asio::awaitable<std::optional<std::string>> find(registry::Store& store, const std::string& namespace_,
                                                 const std::string& name, std::string_view resource_version) {
  std::optional<std::string> found;
  try {
    auto pending = store.get(namespace_, name, std::string(resource_version));  // no temporaries in a co_await
    registry::ReadObject read = co_await std::move(pending);
    found = std::move(read.json);
  } catch (const apierrors::ApiError& error) {
    if (error.status().code != 404) throw;
  }
  co_return found;
}

struct Found {
  std::string stored;
  bool created = false;
};

// The object as stored, created from `expected` when there is none. It is looked for in the watch cache, so that a
// restart, which finds every object in place, asks storage nothing (on etcd, a round trip per object); the cache
// may be a moment behind, so a create that finds the object there after all reads it from storage. Writes that
// reconcile it read and compare-and-swap the latest object in any case.
asio::awaitable<Found> find_or_create(registry::Store& store, const json::object& expected) {
  const std::string namespace_(registry::meta_string(expected, "namespace"));
  const std::string name(registry::meta_string(expected, "name"));
  auto cached = find(store, namespace_, name, "0");
  std::optional<std::string> in_cache = co_await std::move(cached);
  if (in_cache) co_return Found{std::move(*in_cache)};
  try {
    auto pending = store.create(namespace_, expected, registry::WriteOptions{});
    std::string created = co_await std::move(pending);  // not within the braces below (g++ 12)
    co_return Found{std::move(created), true};
  } catch (const apierrors::ApiError& error) {
    if (error.status().code != 409) throw;
  }
  auto reading = find(store, namespace_, name, "");
  std::optional<std::string> stored = co_await std::move(reading);
  const auto& definition = store.definition();
  // Created and deleted again meanwhile: the caller's retry starts over.
  if (!stored) throw apierrors::ApiError(apierrors::conflict(definition.group, definition.resource, name,
                                                             "it was deleted while being created"));
  co_return Found{std::move(*stored)};
}

// Stores what `reconcile` makes of the current object (rerun on the latest one after a lost race).
template <typename Reconcile>
asio::awaitable<std::string> update(registry::Store& store, const std::string& namespace_, const std::string& name,
                                    Reconcile reconcile) {
  registry::UpdateFunction function = [&](const json::object* current) -> json::object {
    const auto& definition = store.definition();
    if (!current) throw apierrors::ApiError(apierrors::not_found(definition.group, definition.resource, name));
    return reconcile(*current).value_or(*current);
  };
  auto pending = store.update(namespace_, name, std::move(function), registry::WriteOptions{});
  std::pair<std::string, bool> stored = co_await std::move(pending);
  co_return std::move(stored.first);
}

// Creates or reconciles `expected` (a ClusterRole or Role) in `store`; the revision it is stored at.
asio::awaitable<storage::Revision> ensure_role(registry::Store& store, const json::object& expected) {
  const std::string namespace_(registry::meta_string(expected, "namespace"));
  const std::string name(registry::meta_string(expected, "name"));
  auto finding = find_or_create(store, expected);
  Found found = co_await std::move(finding);
  if (auto existing = registry::parse_json_object(found.stored);
      !found.created && existing && reconcile_role(*existing, expected)) {
    auto pending = update(store, namespace_, name,
                          [&](const json::object& current) { return reconcile_role(current, expected); });
    found.stored = co_await std::move(pending);
  }
  co_return stored_revision(found.stored);
}

// Likewise for a ClusterRoleBinding or RoleBinding.
asio::awaitable<storage::Revision> ensure_binding(registry::Store& store, const json::object& expected) {
  const std::string namespace_(registry::meta_string(expected, "namespace"));
  const std::string name(registry::meta_string(expected, "name"));
  auto finding = find_or_create(store, expected);
  Found found = co_await std::move(finding);
  std::optional<std::string> stored = std::move(found.stored);
  std::optional<ReconciledBinding> reconciled;
  if (!found.created)
    if (auto existing = registry::parse_json_object(*stored)) reconciled = reconcile_binding(*existing, expected);
  if (reconciled && reconciled->recreate) {  // a delete is decided on storage's copy, not the cache's
    auto reading = find(store, namespace_, name, "");
    stored = co_await std::move(reading);
    reconciled.reset();
    if (stored)
      if (auto existing = registry::parse_json_object(*stored)) reconciled = reconcile_binding(*existing, expected);
  }
  if (reconciled && reconciled->recreate) {
    auto pending = store.remove(namespace_, name, registry::DeleteOptions{});
    co_await std::move(pending);
    stored.reset();
  }
  if (!stored) {
    auto pending = store.create(namespace_, expected, registry::WriteOptions{});
    stored = co_await std::move(pending);
  } else if (reconciled) {
    auto pending = update(store, namespace_, name, [&](const json::object& current) -> std::optional<json::object> {
      auto again = reconcile_binding(current, expected);
      if (again && again->recreate) {  // changed under us: the next attempt starts over
        const auto& definition = store.definition();
        throw apierrors::ApiError(apierrors::conflict(definition.group, definition.resource, name,
                                                      "its roleRef changed"));
      }
      return again ? std::optional<json::object>(std::move(again->binding)) : std::nullopt;
    });
    stored = co_await std::move(pending);
  }
  co_return stored_revision(*stored);
}

// Ensures each of `objects` with `ensure_one`, four at a time; the highest revision they are stored at. A first
// start creates some 130 objects: together, the embedded store commits them in shared transactions and etcd's
// round trips overlap, where one after another each waited for its own.
template <typename EnsureOne>
asio::awaitable<storage::Revision> ensure_all(registry::Store& store, std::vector<json::object> objects,
                                              EnsureOne ensure_one) {
  std::size_t next = 0;
  storage::Revision revision = 0;
  // The workers share `next` and `revision` on this coroutine's executor, one at a time between their awaits.
  auto worker = [&]() -> asio::awaitable<void> {
    while (next < objects.size()) {
      auto ensuring = ensure_one(store, objects[next++]);
      const storage::Revision stored = co_await std::move(ensuring);
      revision = std::max(revision, stored);
    }
  };
  using namespace asio::experimental::awaitable_operators;
  auto all = (worker() && worker()) && (worker() && worker());
  co_await std::move(all);
  co_return revision;
}

}  // namespace

std::optional<json::object> reconcile_role(const json::object& existing, const json::object& expected) {
  if (is_protected(existing)) return std::nullopt;
  json::object result = existing;
  bool changed = merge_metadata(result, expected);

  // validation.Covers; the missing rules are added compacted, as the escalation check lists them. Rules stored as
  // kube wrote them are covered without the check, which a restart would otherwise run on every bootstrap role.
  const json::value* stored_rules = existing.if_contains("rules");
  const json::value* expected_rules = expected.if_contains("rules");
  const bool same_rules = stored_rules && expected_rules && *stored_rules == *expected_rules;
  std::vector<PolicyRule> missing = same_rules ? std::vector<PolicyRule>{}
                                               : uncovered_rules(rules_of(existing), rules_of(expected));
  if (!missing.empty()) {
    json::array rules = array_or_empty(existing, "rules");
    for (const auto& rule : missing) rules.push_back(rule_json(rule));
    result["rules"] = std::move(rules);
    changed = true;
  }

  const json::array& expected_selectors = selectors_of(expected);
  if (!expected.contains("aggregationRule") && existing.contains("aggregationRule")) {
    result.erase("aggregationRule");  // kube's role is not aggregated (any more)
    changed = true;
  } else if (expected.contains("aggregationRule")) {
    json::array selectors = selectors_of(existing);
    const std::size_t before = selectors.size();
    for (const auto& selector : expected_selectors)
      if (!contains(selectors, selector)) selectors.push_back(selector);
    if (selectors.size() != before || !existing.contains("aggregationRule")) {
      result["aggregationRule"] = json::object{{"clusterRoleSelectors", std::move(selectors)}};
      changed = true;
    }
  }
  if (!changed) return std::nullopt;
  return result;
}

std::optional<ReconciledBinding> reconcile_binding(const json::object& existing, const json::object& expected) {
  if (is_protected(existing)) return std::nullopt;
  auto role_ref = [](const json::object& binding) {
    return normalized(object_or_empty(binding, "roleRef"), {"apiGroup", "kind", "name"});
  };
  if (role_ref(existing) != role_ref(expected))
    return ReconciledBinding{expected, true};

  json::object result = existing;
  bool changed = merge_metadata(result, expected);
  json::array subjects = array_or_empty(existing, "subjects");
  json::array keys;
  for (const auto& subject : subjects) keys.push_back(subject_key(subject));
  for (const auto& subject : array_or_empty(expected, "subjects"))
    if (!contains(keys, subject_key(subject))) {
      subjects.push_back(subject);
      changed = true;
    }
  if (!changed) return std::nullopt;
  if (!subjects.empty()) result["subjects"] = std::move(subjects);
  return ReconciledBinding{std::move(result), false};
}

asio::awaitable<BootstrapRevisions> ensure_bootstrap_policy(BootstrapStores stores) {
  // kube's post-start hook stores the cluster-wide objects first, then the namespaced ones.
  BootstrapRevisions revisions;
  auto cluster_roles = ensure_all(stores.cluster_roles, bootstrap_cluster_roles(), ensure_role);
  revisions.cluster_roles = co_await std::move(cluster_roles);
  auto cluster_role_bindings =
      ensure_all(stores.cluster_role_bindings, bootstrap_cluster_role_bindings(), ensure_binding);
  revisions.cluster_role_bindings = co_await std::move(cluster_role_bindings);
  auto roles = ensure_all(stores.roles, bootstrap_namespace_roles(), ensure_role);
  revisions.roles = co_await std::move(roles);
  auto role_bindings = ensure_all(stores.role_bindings, bootstrap_namespace_role_bindings(), ensure_binding);
  revisions.role_bindings = co_await std::move(role_bindings);
  co_return revisions;
}

}  // namespace kapi::authorization::rbac
