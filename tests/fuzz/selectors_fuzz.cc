// Fuzzes the labelSelector and fieldSelector parameters of a list, watch or deletecollection as kube-apiserver
// reads them: label selectors as k8s.io/apimachinery/pkg/labels parses them (server/selectors/label_selector.h:
// its lexer and recursive-descent parser, key and value validation), field selectors as pkg/fields does
// (server/selectors/field_selector.h: terms, operators, escapes). Every input is tried as both.
//
// Both report a selector kube would refuse as SelectorParseError, its 400's message; anything else escaping, a
// crash, a sanitizer report or a timeout is a finding. So is a broken String() round trip, which the headers
// promise and caches rely on (a selector is printed into watch cache keys and into the requests kapi forwards):
//  - a label selector parses back from its String() to the same selector;
//  - a field selector parses back from its String() to the same terms, possibly in another order.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "server/selectors/field_selector.h"
#include "server/selectors/label_selector.h"
#include "tests/fuzz/finding.h"

namespace {

using kapi::fuzz::finding;

using kapi::selectors::FieldRequirement;
using kapi::selectors::FieldSelector;
using kapi::selectors::LabelSelector;
using kapi::selectors::SelectorParseError;

void label_selector(std::string_view text) {
  LabelSelector selector;
  try {
    selector = LabelSelector::parse(text);
  } catch (const SelectorParseError&) {
    return;
  }
  const std::string printed = selector.to_string();
  try {
    if (LabelSelector::parse(printed) != selector) finding("label selector parses back to another selector", printed);
  } catch (const SelectorParseError&) {
    finding("label selector's String() does not parse", printed);
  }

  // Matching against labels the selector itself names: each key set to its first value, then no labels at all.
  kapi::selectors::LabelMap labels;
  for (const auto& requirement : selector.requirements()) {
    labels.emplace(requirement.key, requirement.values.empty() ? std::string() : requirement.values.front());
    selector.exact_value(requirement.key);
  }
  selector.matches(labels);
  selector.matches(kapi::selectors::LabelMap{});
}

std::vector<FieldRequirement> sorted(std::vector<FieldRequirement> requirements) {
  std::sort(requirements.begin(), requirements.end(), [](const FieldRequirement& a, const FieldRequirement& b) {
    return std::tie(a.field, a.op, a.value) < std::tie(b.field, b.op, b.value);
  });
  return requirements;
}

void field_selector(std::string_view text) {
  FieldSelector selector;
  try {
    selector = FieldSelector::parse(text);
  } catch (const SelectorParseError&) {
    return;
  }
  const std::string printed = selector.to_string();
  try {
    if (sorted(FieldSelector::parse(printed).requirements()) != sorted(selector.requirements()))
      finding("field selector parses back to other terms", printed);
  } catch (const SelectorParseError&) {
    finding("field selector's String() does not parse", printed);
  }

  kapi::selectors::FieldMap fields;
  for (const std::string& field : selector.fields()) {
    if (auto value = selector.exact_value(field)) fields.emplace(field, *value);
  }
  selector.matches(fields);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  label_selector(text);
  field_selector(text);
  return 0;
}
