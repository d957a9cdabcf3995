#pragma once
// k8s.io/apimachinery/pkg/apis/meta/internalversion/validation: the checks kube's ListResource and
// DeleteCollection run on the ListOptions decoded from a query, before anything is read.
#include "server/validation/field_error.h"

#include <optional>
#include <string_view>

namespace kapi::validation {

// The ListOptions fields a LIST, WATCH or DELETE of a collection is validated on, as its query gave them.
struct ListOptionsFields {
  bool watch = false;
  std::string_view resource_version, resource_version_match, continue_token;
  std::optional<bool> send_initial_events;  // absent unless the query names it
};

// ValidateListOptions with the WatchList feature on (kube 1.32's default): a watch may take
// resourceVersionMatch=NotOlderThan only with sendInitialEvents, a list never takes sendInitialEvents. kube answers
// these errors as Invalid ListOptions.meta.k8s.io (422).
ErrorList validate_list_options(const ListOptionsFields& options);

}  // namespace kapi::validation
