// The slice of ListOptions decoding that kube-apiserver's RequestInfo depends on.
//
// For a collection GET, NewRequestInfo decodes the query as metainternalversion.ListOptions (url.Values ->
// metav1.ListOptions -> internal ListOptions, parsing both selectors). Whether that succeeds decides whether a
// `fieldSelector=metadata.name=x` may name the object for authorization, so the exact acceptance rules of that codec
// matter here even though the decoded options themselves are used elsewhere.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "server/http/query.h"

namespace kapi::request {

struct ListOptionsProbe {
  // The parameter codec accepted the query (selectors parse, limit/timeoutSeconds are integers).
  bool decoded = false;
  // ListOptions.Watch; when decoding failed, NewRequestInfo's own fallback reading of `watch`.
  bool watch = false;
  // The value the field selector requires metadata.name to equal (only when decoded).
  std::optional<std::string> field_selector_name;
};

ListOptionsProbe probe_list_options(const http::QueryParams& query);

// Go's strconv.ParseInt(s, 10, 64) succeeds.
bool parses_as_int64(std::string_view text);

// runtime.Convert_Slice_string_To_bool on a present value: only "0" and "false" (Unicode case-folded) are false.
bool query_value_is_true(std::string_view value);

// A bool parameter (watch, allowWatchBookmarks, force, stdin...) as the parameter codec decodes it: false when absent.
bool query_flag(const http::QueryParams& query, std::string_view key);

}  // namespace kapi::request
