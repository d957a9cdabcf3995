// kube's NewConflictError (internal/conflict.go): apply's conflicts as a 409 Status.
#include "base/go_quote.h"
#include "base/go_time.h"
#include "server/fieldmanager/manager.h"
#include "server/registry/json_fields.h"

#include <boost/json/parse.hpp>

#include <map>

namespace kapi::fieldmanager::internal {
namespace {

namespace json = boost::json;
namespace sm = structured_merge;

// printManager: `"kubectl" with subresource "scale" using apps/v1 at 2001-02-03T04:05:06Z` from an identifier;
// the identifier quoted whole when it is not one.
std::string print_manager(const std::string& manager) {
  json::error_code error;
  json::value decoded = json::parse(manager, error);
  if (error || !decoded.is_object()) return base::go_quote(manager);
  const json::object& entry = decoded.get_object();
  std::string text = base::go_quote(std::string(registry::fields::string_at(entry, "manager")));
  if (std::string subresource = std::string(registry::fields::string_at(entry, "subresource")); !subresource.empty()) {
    text += " with subresource " + base::go_quote(subresource);
  }
  if (std::string(registry::fields::string_at(entry, "operation")) != "Update") return text;
  text += " using " + std::string(registry::fields::string_at(entry, "apiVersion"));
  // Identifiers carry no time; one that does (kube's tests build them) is printed as time.RFC3339 in UTC.
  if (const auto* time = entry.if_contains("time"); time && time->is_string()) {
    if (auto parsed = base::parse_rfc3339(time->get_string())) text += " at " + base::format_rfc3339(parsed->seconds);
  }
  return text;
}

std::string conflict_message(const std::vector<sm::Conflict>& conflicts) {
  if (conflicts.size() == 1) {
    return "Apply failed with 1 conflict: conflict with " + print_manager(conflicts.front().manager) + ": " +
           sm::path_to_string(conflicts.front().path);
  }
  std::map<std::string, std::vector<const sm::Path*>> by_manager;  // printed by sorted manager
  for (const auto& conflict : conflicts) by_manager[conflict.manager].push_back(&conflict.path);
  std::string lines;
  for (const auto& [manager, paths] : by_manager) {
    if (!lines.empty()) lines += '\n';
    lines += "conflicts with " + print_manager(manager) + ":";
    for (const auto* path : paths) lines += "\n- " + sm::path_to_string(*path);
  }
  return "Apply failed with " + std::to_string(conflicts.size()) + " conflicts: " + lines;
}

}  // namespace

apierrors::Status conflict_error(const std::vector<sm::Conflict>& conflicts) {
  apierrors::StatusDetails details;
  for (const auto& conflict : conflicts) {
    details.causes.push_back({"FieldManagerConflict", "conflict with " + print_manager(conflict.manager),
                              sm::path_to_string(conflict.path)});
  }
  return {409, "Conflict", conflict_message(conflicts), std::move(details)};
}

}  // namespace kapi::fieldmanager::internal
