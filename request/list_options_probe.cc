#include "request/list_options_probe.h"

#include "base/name_validation.h"
#include "server/selectors/field_selector.h"
#include "server/selectors/label_selector.h"
#include "base/ascii.h"

#include <algorithm>
#include <cstdint>

namespace kapi::request {
namespace {

using base::ascii_lowercase;  // compared with ASCII words only

// k8s.io/apimachinery/pkg/api/validation/path.IsValidPathSegmentName.
bool is_valid_path_segment_name(std::string_view name) { return validation::is_valid_path_segment_name(name).empty(); }

// fields.ParseSelector; std::nullopt where Go returns an error.
std::optional<selectors::FieldSelector> parse_field_selector(std::string_view text) {
  try {
    return selectors::FieldSelector::parse(text);
  } catch (const selectors::SelectorParseError&) {
    return std::nullopt;
  }
}

// Whether labels.Parse accepts the selector (its lexer, grammar and key/value validation).
bool label_selector_is_valid(std::string_view text) {
  try {
    selectors::LabelSelector::parse(text);
    return true;
  } catch (const selectors::SelectorParseError&) {
    return false;
  }
}

}  // namespace

bool parses_as_int64(std::string_view text) {
  bool negative = false;
  if (!text.empty() && (text.front() == '+' || text.front() == '-')) {
    negative = text.front() == '-';
    text.remove_prefix(1);
  }
  if (text.empty()) return false;
  const std::uint64_t limit = negative ? std::uint64_t{1} << 63 : (std::uint64_t{1} << 63) - 1;
  std::uint64_t value = 0;
  for (const char c : text) {
    if (c < '0' || c > '9') return false;
    const auto digit = static_cast<std::uint64_t>(c - '0');
    if (value > (limit - digit) / 10) return false;
    value = value * 10 + digit;
  }
  return true;
}

bool query_value_is_true(std::string_view value) {
  const std::string lowered = ascii_lowercase(value);
  // strings.EqualFold also folds U+017F LATIN SMALL LETTER LONG S to 's'.
  return lowered != "0" && lowered != "false" && lowered != "fal\xC5\xBF" "e";
}

bool query_flag(const http::QueryParams& query, std::string_view key) {
  const auto value = query.get(key);
  return value && query_value_is_true(*value);
}

ListOptionsProbe probe_list_options(const http::QueryParams& query) {
  ListOptionsProbe probe;
  const auto watch = query.get("watch");
  const auto field_selector = parse_field_selector(query.get("fieldSelector").value_or(""));
  const auto integer_or_absent = [&](std::string_view key) {
    const auto value = query.get(key);
    return !value || parses_as_int64(*value);
  };
  probe.decoded = field_selector.has_value() && label_selector_is_valid(query.get("labelSelector").value_or("")) &&
                  integer_or_absent("timeoutSeconds") && integer_or_absent("limit");
  if (!probe.decoded) {
    // NewRequestInfo's fallback reads `watch` itself, with strings.ToLower rather than EqualFold.
    if (watch) {
      const std::string lowered = ascii_lowercase(*watch);
      probe.watch = lowered != "false" && lowered != "0";
    }
    return probe;
  }
  probe.watch = watch && query_value_is_true(*watch);
  if (const auto name = field_selector->exact_value("metadata.name"); name && is_valid_path_segment_name(*name)) {
    probe.field_selector_name = std::string(*name);
  }
  return probe;
}

}  // namespace kapi::request
