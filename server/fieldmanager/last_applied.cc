// Client-side apply → server-side apply (internal/lastappliedmanager.go, lastappliedupdater.go, lastapplied.go): a
// "kubectl" apply may take over what kubectl's last-applied-configuration annotation says it applied, and keeps that
// annotation in step with what it applies.
#include "base/go_json_string.h"
#include "server/fieldmanager/manager.h"
#include "server/validation/object_meta.h"

#include <boost/json/parse.hpp>

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

namespace kapi::fieldmanager::internal {
namespace {

namespace json = boost::json;
namespace sm = structured_merge;

const std::string kKubectl = "kubectl";

// The last-applied annotation of an object, when it has a non-empty one.
std::optional<std::string> last_applied_of(const json::object& object) {
  const json::object* annotations = metadata_map(object, "annotations");
  if (!annotations) return std::nullopt;
  const auto* value = annotations->if_contains(kLastAppliedConfigAnnotation);
  if (!value || !value->is_string() || value->get_string().empty()) return std::nullopt;
  return std::string(value->get_string());
}

// lastAppliedManager: a "kubectl" apply that conflicts only on fields its last-applied annotation set (to the values
// they still have) is forced.
class LastAppliedManager final : public Manager {
 public:
  LastAppliedManager(ManagerPtr inner, KindType type) : inner_(std::move(inner)), type_(std::move(type)) {}

  Managed update(const json::object& live, json::object& updated, Managed managed,
                 const std::string& manager) const override {
    return inner_->update(live, updated, std::move(managed), manager);
  }

  Applied apply(const json::object& live, const json::object& config, Managed managed, const std::string& manager,
                bool force) const override {
    if (manager != kKubectl) return inner_->apply(live, config, std::move(managed), manager, force);
    std::vector<sm::Conflict> conflicts;
    try {
      return inner_->apply(live, config, managed, manager, force);
    } catch (const sm::Conflicts& error) {
      conflicts = error.conflicts();
    }
    std::optional<sm::Set> allowed = allowed_conflicts_from_last_applied(live);
    if (!allowed) throw sm::Conflicts(std::move(conflicts));
    std::vector<sm::Conflict> remaining;
    for (auto& conflict : conflicts) {
      if (!allowed->has(conflict.path)) remaining.push_back(std::move(conflict));
    }
    if (!remaining.empty()) throw sm::Conflicts(std::move(remaining));
    return inner_->apply(live, config, std::move(managed), manager, true);
  }

 private:
  // The fields the annotation applied that the live object still holds as applied; nullopt when there is no
  // usable annotation.
  std::optional<sm::Set> allowed_conflicts_from_last_applied(const json::object& live) const {
    std::optional<std::string> last_applied = last_applied_of(live);
    if (!last_applied) return std::nullopt;
    try {
      sm::TypedValue live_typed = type_.to_typed(live, false);
      json::error_code error;
      json::value decoded = json::parse(*last_applied, error);
      // Unstructured's JSON decoding wants an object with a kind.
      if (error || !decoded.is_object()) return std::nullopt;
      const auto* kind = decoded.get_object().if_contains("kind");
      if (!kind || !kind->is_string() || kind->get_string().empty()) return std::nullopt;
      const auto* api_version = decoded.get_object().if_contains("apiVersion");
      if (!api_version || !api_version->is_string() || api_version->get_string() != type_.api_version) {
        return std::nullopt;
      }
      sm::TypedValue last_applied_typed = type_.to_typed(std::move(decoded), false);
      sm::Set fields = sm::to_field_set(last_applied_typed);
      sm::Comparison comparison = sm::compare(last_applied_typed, live_typed);
      return fields.difference(comparison.modified).difference(comparison.added).difference(comparison.removed);
    } catch (const std::exception&) {
      return std::nullopt;
    }
  }

  ManagerPtr inner_;
  KindType type_;
};

// A JSON value with every object's members in key order, as Go's encoding/json writes a map.
json::value sorted(const json::value& value) {
  if (value.is_array()) {
    json::array items;
    items.reserve(value.get_array().size());
    for (const auto& item : value.get_array()) items.push_back(sorted(item));
    return items;
  }
  if (!value.is_object()) return value;
  std::vector<const json::key_value_pair*> members;
  for (const auto& member : value.get_object()) members.push_back(&member);
  std::sort(members.begin(), members.end(), [](const auto* a, const auto* b) { return a->key() < b->key(); });
  json::object out;
  out.reserve(members.size());
  for (const auto* member : members) out.emplace(member->key(), sorted(member->value()));
  return out;
}

// buildLastApplied: the applied configuration without the annotation itself, as
// runtime.Encode(unstructured.UnstructuredJSONScheme, ...) writes it (json.Encoder: a trailing newline).
std::string build_last_applied(const json::object& config) {
  json::object copy = config;
  if (auto* metadata = copy.if_contains("metadata"); metadata && metadata->is_object()) {
    json::object& meta = metadata->get_object();
    if (const json::object* annotations = metadata_map(copy, "annotations")) {
      json::object kept = *annotations;
      kept.erase(kLastAppliedConfigAnnotation);
      meta["annotations"] = std::move(kept);
    } else {
      // GetAnnotations is nil (absent, or not a string map), and SetAnnotations(nil) removes the member.
      meta.erase("annotations");
    }
  }
  std::string text;
  base::append_go_json(text, sorted(copy));
  text += '\n';
  return text;
}

// SetLastApplied: the annotation is dropped instead when the annotations would outgrow kube's limit.
void set_last_applied(json::object& object, const std::string& value) {
  json::object annotations;
  if (const json::object* existing = metadata_map(object, "annotations")) annotations = *existing;
  annotations[kLastAppliedConfigAnnotation] = value;
  std::size_t total = 0;
  for (const auto& [key, annotation] : annotations) {
    total += key.size() + (annotation.is_string() ? annotation.get_string().size() : 0);
  }
  if (total > validation::kTotalAnnotationSizeLimit) annotations.erase(kLastAppliedConfigAnnotation);
  json::value& metadata = object["metadata"];
  if (!metadata.is_object()) metadata = json::object();
  metadata.get_object()["annotations"] = std::move(annotations);
}

// lastAppliedUpdater: a "kubectl" apply rewrites the annotation an object already has to what it applied.
class LastAppliedUpdater final : public Manager {
 public:
  explicit LastAppliedUpdater(ManagerPtr inner) : inner_(std::move(inner)) {}

  Managed update(const json::object& live, json::object& updated, Managed managed,
                 const std::string& manager) const override {
    return inner_->update(live, updated, std::move(managed), manager);
  }

  Applied apply(const json::object& live, const json::object& config, Managed managed, const std::string& manager,
                bool force) const override {
    Applied applied = inner_->apply(live, config, std::move(managed), manager, force);
    if (manager == kKubectl && applied.object && last_applied_of(*applied.object)) {
      set_last_applied(*applied.object, build_last_applied(config));
    }
    return applied;
  }

 private:
  ManagerPtr inner_;
};

}  // namespace

ManagerPtr last_applied_manager(ManagerPtr inner, KindType type) {
  return std::make_unique<LastAppliedManager>(std::move(inner), std::move(type));
}
ManagerPtr last_applied_updater(ManagerPtr inner) { return std::make_unique<LastAppliedUpdater>(std::move(inner)); }

}  // namespace kapi::fieldmanager::internal
