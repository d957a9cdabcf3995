#include "server/structured_merge/update.h"

#include "base/go_quote.h"

#include <map>
#include <string>
#include <vector>

namespace kapi::structured_merge {
namespace {

// Conflicts.Error: a single conflict on one line, more grouped by manager (in name order) with one line per path.
std::string conflicts_message(const std::vector<Conflict>& conflicts) {
  if (conflicts.size() == 1) {
    return "conflict with " + base::go_quote(conflicts.front().manager) + ": " + path_to_string(conflicts.front().path);
  }
  std::map<std::string, std::vector<const Path*>> paths_by_manager;
  for (const Conflict& conflict : conflicts) paths_by_manager[conflict.manager].push_back(&conflict.path);
  std::string message;
  for (const auto& [manager, paths] : paths_by_manager) {
    if (!message.empty()) message += '\n';
    message += "conflicts with " + base::go_quote(manager) + ":";
    for (const Path* path : paths) message += "\n- " + path_to_string(*path);
  }
  return message;
}

}  // namespace

Conflicts::Conflicts(std::vector<Conflict> conflicts)
    : std::runtime_error(conflicts_message(conflicts)), conflicts_(std::move(conflicts)) {}

}  // namespace kapi::structured_merge
