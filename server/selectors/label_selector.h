#pragma once
// Label selectors as k8s.io/apimachinery/pkg/labels parses, prints and matches them: the `labelSelector` of a list,
// watch or deletecollection. Parse once per request, then match every object of a list or watch without allocating.
#include <concepts>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace kapi::selectors {

// A selector kube would refuse; what() is kube's message, which kube-apiserver returns in a 400 BadRequest Status.
class SelectorParseError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// What a lookup answers for a key: the value, or nullopt when the object has no such label.
template <class Lookup>
concept LabelLookup = std::invocable<Lookup&, std::string_view> &&
    std::convertible_to<std::invoke_result_t<Lookup&, std::string_view>, std::optional<std::string_view>>;

using LabelMap = std::map<std::string, std::string, std::less<>>;

struct LabelRequirement {
  // labels/selection.Operator; Equals and DoubleEquals match alike and differ only in how they print.
  enum class Operator { Equals, DoubleEquals, NotEquals, In, NotIn, Exists, DoesNotExist, GreaterThan, LessThan };

  std::string key;
  Operator op = Operator::Exists;
  std::vector<std::string> values;  // sorted, without duplicates; one for =, ==, !=, >, <; none for exists

  // `value` is the object's value for `key`, nullopt if it has none. As in Go, != and notin match an absent key;
  // > and < need a present key whose value is a decimal int64.
  bool matches(std::optional<std::string_view> value) const;
  // Requirement.String(): `key=v`, `key in (a,b)`, `!key`, ...
  std::string to_string() const;

  bool operator==(const LabelRequirement&) const = default;
};

class LabelSelector {
 public:
  // Matches everything, as labels.Everything().
  LabelSelector() = default;

  // labels.Parse. Throws SelectorParseError with kube's message, e.g.
  // "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt".
  static LabelSelector parse(std::string_view text);
  static LabelSelector everything() { return {}; }

  // True when the selector does not restrict anything.
  bool empty() const noexcept { return requirements_.empty(); }

  // All requirements hold for the labels `lookup` reports (key -> optional value).
  template <LabelLookup Lookup>
  bool matches(Lookup&& lookup) const {
    for (const auto& requirement : requirements_) {
      if (!requirement.matches(std::invoke(lookup, std::string_view(requirement.key)))) return false;
    }
    return true;
  }
  bool matches(const LabelMap& labels) const;

  // labels.Selector.String(): requirements sorted by key, joined by ','. Parsing it gives the same selector.
  std::string to_string() const;
  const std::vector<LabelRequirement>& requirements() const noexcept { return requirements_; }

  // RequiresExactMatch: when the first requirement on `key` pins it to one value (`key=v`, `key==v`,
  // `key in (v)`), that value; a view into this selector. Lets a cache answer from an index.
  std::optional<std::string_view> exact_value(std::string_view key) const;

  bool operator==(const LabelSelector&) const = default;

 private:
  explicit LabelSelector(std::vector<LabelRequirement> requirements) : requirements_(std::move(requirements)) {}

  std::vector<LabelRequirement> requirements_;  // sorted by key, as kube sorts them
};

}  // namespace kapi::selectors
