#include "server/endpoints/handlers/managed_fields.h"

#include "base/go_quote.h"
#include "base/utf8.h"
#include "request/list_options_probe.h"
#include "server/fieldmanager/field_manager.h"

#include <boost/json.hpp>

#include <cstdio>

namespace kapi::endpoints::handlers {
namespace {

namespace json = boost::json;

// %#U of a rune that is not printable: "U+0009".
std::string rune_name(char32_t rune) {
  char buffer[16];
  std::snprintf(buffer, sizeof buffer, "U+%04X", static_cast<unsigned>(rune));
  return buffer;
}

std::string_view options_kind_name(WriteOptionsKind kind) {
  switch (kind) {
    case WriteOptionsKind::Create: return "CreateOptions";
    case WriteOptionsKind::Update: return "UpdateOptions";
    default: return "PatchOptions";
  }
}

}  // namespace

std::string write_manager(const Scope& scope, WriteOptionsKind kind) {
  const std::string field_manager(scope.query().get("fieldManager").value_or(""));
  const validation::Path path("fieldManager");
  validation::ErrorList errors;
  if (kind == WriteOptionsKind::Patch && scope.query().get("force"))
    errors.push_back(validation::forbidden(validation::Path("force"), "may not be specified for non-apply patch"));
  if (kind == WriteOptionsKind::Apply && field_manager.empty())
    errors.push_back(validation::required(path, "is required for apply patch"));
  if (field_manager.size() > fieldmanager::kFieldManagerMaxLength)
    errors.push_back(validation::too_long(path, fieldmanager::kFieldManagerMaxLength));
  for (std::size_t at = 0; at < field_manager.size();) {
    const base::Rune rune = base::decode_rune(std::string_view(field_manager).substr(at));
    if (!base::go_is_print(rune.value))
      errors.push_back(validation::invalid(path, field_manager,
                                           "invalid character " + rune_name(rune.value) + " (at position " +
                                               std::to_string(at) + ")"));
    at += rune.width;
  }
  if (!errors.empty())
    throw apierrors::ApiError(apierrors::invalid("meta.k8s.io", options_kind_name(kind), "", errors));
  const std::string user_agent(scope.request().headers.get("User-Agent").value_or(""));
  return fieldmanager::manager_or_user_agent(field_manager, user_agent);
}

bool apply_force(const Scope& scope) { return request::query_flag(scope.query(), "force"); }

std::function<void(const json::object*, json::object&)> managed_fields_recorder(const Scope& scope,
                                                                             std::string manager) {
  const fieldmanager::FieldManager* field_manager =
      scope.field_managers ? scope.field_managers->of(scope.info.subresource) : nullptr;
  if (!field_manager) return nullptr;
  return [field_manager, manager = std::move(manager)](const json::object* old, json::object& object) {
    object = field_manager->update(old, std::move(object), manager);
  };
}

std::string accepted_patch_types(const registry::Strategy& strategy) {
  if (!strategy.strategic_merge_patch())
    return "application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml";
  return "application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, "
         "application/apply-patch+yaml";
}

}  // namespace kapi::endpoints::handlers
