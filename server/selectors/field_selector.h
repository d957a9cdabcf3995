#pragma once
// Field selectors as k8s.io/apimachinery/pkg/fields parses, prints and matches them: the `fieldSelector` of a list,
// watch or deletecollection. Comma-separated terms `field=value`, `field==value`, `field!=value`, all of which must
// hold; in a value `\,`, `\=` and `\\` stand for `,`, `=` and `\`.
#include "server/selectors/label_selector.h"  // SelectorParseError

#include <concepts>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kapi::selectors {

// What a lookup answers for a field: its value, or nullopt when the object has no such field (compared as "").
template <class Lookup>
concept FieldLookup = LabelLookup<Lookup>;

using FieldMap = LabelMap;

struct FieldRequirement {
  // `==` is `=`: kube keeps no trace of which was written.
  enum class Operator { Equals, NotEquals };

  std::string field;
  Operator op = Operator::Equals;
  std::string value;  // unescaped

  bool matches(std::string_view actual) const { return (actual == value) == (op == Operator::Equals); }
  // `field=value` with the value escaped again, as fields.Selector.String() prints a term.
  std::string to_string() const;

  bool operator==(const FieldRequirement&) const = default;
};

class FieldSelector {
 public:
  // Matches everything, as fields.Everything().
  FieldSelector() = default;

  // fields.ParseSelector. Throws SelectorParseError with kube's message, e.g.
  // "invalid selector: 'a'; can't understand 'a'" or "invalid field selector: invalid escape sequence: \x".
  static FieldSelector parse(std::string_view text);
  static FieldSelector everything() { return {}; }

  bool empty() const noexcept { return requirements_.empty(); }

  // Every term holds for the fields `lookup` reports; a field it does not know compares as "".
  template <FieldLookup Lookup>
  bool matches(Lookup&& lookup) const {
    for (const auto& requirement : requirements_) {
      const std::optional<std::string_view> actual = std::invoke(lookup, std::string_view(requirement.field));
      if (!requirement.matches(actual.value_or(std::string_view()))) return false;
    }
    return true;
  }
  bool matches(const FieldMap& fields) const;

  // RequiresExactMatch: the value of the first `field=value` term on `field`; a view into this selector. Lets a
  // registry answer `metadata.name=x` with a get, or a cache from an index (`spec.nodeName=n`).
  std::optional<std::string_view> exact_value(std::string_view field) const;

  // fields.Selector.String(): the terms in kube's order (sorted as written), values escaped. Parses back to an
  // equivalent selector (the order can differ: `a==b` prints as `a=b`, which may sort elsewhere).
  std::string to_string() const;
  // The distinct field names used, in term order, so a resource can refuse the ones it does not support (kube
  // answers 400 "field label not supported: <name>").
  std::vector<std::string> fields() const;
  const std::vector<FieldRequirement>& requirements() const noexcept { return requirements_; }

  bool operator==(const FieldSelector&) const = default;

 private:
  explicit FieldSelector(std::vector<FieldRequirement> requirements) : requirements_(std::move(requirements)) {}

  std::vector<FieldRequirement> requirements_;
};

// fields.EscapeValue: `\` `,` `=` prefixed by a backslash, so any string can be a selector value.
std::string escape_field_value(std::string_view value);

}  // namespace kapi::selectors
