#include "server/validation/list_options.h"

namespace kapi::validation {

ErrorList validate_list_options(const ListOptionsFields& options) {
  ErrorList errors;
  const Path match_path("resourceVersionMatch");
  const std::string_view match = options.resource_version_match;
  if (options.watch) {
    if (options.send_initial_events && match != "NotOlderThan")
      errors.push_back(forbidden(match_path, "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"));
    if (!match.empty()) {
      if (!options.send_initial_events)
        errors.push_back(
            forbidden(match_path, "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided"));
      if (match != "NotOlderThan") errors.push_back(not_supported(match_path, match, {"NotOlderThan"}));
      if (!options.continue_token.empty())
        errors.push_back(forbidden(match_path, "resourceVersionMatch is forbidden when continue is provided"));
    }
    return errors;
  }
  if (!match.empty()) {
    if (options.resource_version.empty())
      errors.push_back(forbidden(match_path, "resourceVersionMatch is forbidden unless resourceVersion is provided"));
    if (!options.continue_token.empty())
      errors.push_back(forbidden(match_path, "resourceVersionMatch is forbidden when continue is provided"));
    if (match != "Exact" && match != "NotOlderThan")
      errors.push_back(not_supported(match_path, match, {"Exact", "NotOlderThan", ""}));
    if (match == "Exact" && options.resource_version == "0")
      errors.push_back(forbidden(match_path, "resourceVersionMatch \"exact\" is forbidden for resourceVersion \"0\""));
  }
  if (options.send_initial_events)
    errors.push_back(forbidden(Path("sendInitialEvents"), "sendInitialEvents is forbidden for list"));
  return errors;
}

}  // namespace kapi::validation
