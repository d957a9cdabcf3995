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
#include <vector>

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

// One term of a field selector as fields.ParseSelector builds it: `field=value`, `field==value` or `field!=value`.
struct FieldSelectorTerm {
  std::string field;
  bool equals = true;  // false for "!="
  std::string value;   // unescaped
};

// fields.ParseSelector: terms split at unescaped ',', sorted bytewise, split at the first operator, values unescaped
// (\\ \, \= are the only escapes; a bare ',' or '=' in a value is an error). std::nullopt when Go returns an error.
std::optional<std::vector<FieldSelectorTerm>> parse_field_selector(std::string_view selector);

// fields.Selector.RequiresExactMatch: the value of the first `field=value` term in parse order.
std::optional<std::string> field_selector_exact_match(const std::vector<FieldSelectorTerm>& terms,
                                                      std::string_view field);

// Whether labels.Parse accepts the selector (its lexer, grammar and key/value validation).
bool label_selector_is_valid(std::string_view selector);

// Go's strconv.ParseInt(s, 10, 64) succeeds.
bool parses_as_int64(std::string_view text);

// runtime.Convert_Slice_string_To_bool on a present value: only "0" and "false" (Unicode case-folded) are false.
bool query_value_is_true(std::string_view value);

}  // namespace kapi::request
