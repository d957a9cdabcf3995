#pragma once
// The YAML that structured-merge-diff's tests are written in, for porting them: schemas in smd's `types:` format
// (typed.NewParser) and values as its parser reads them (go-yaml v2 typing).
#include "server/structured_merge/schema.h"

#include <boost/json/value.hpp>

#include <string_view>

namespace kapi::structured_merge::testing {

// A schema from smd's format:
//   types:
//   - name: myRoot
//     map:
//       fields:
//       - name: list
//         type: {namedType: myList}
//       elementType: {scalar: string}    # the type of other members
//       elementRelationship: atomic      # or separable (the default)
//   - name: myList
//     list:
//       elementType: {namedType: item}
//       elementRelationship: associative # or atomic
//       keys: [name]
// A type reference is `namedType` (optionally with an `elementRelationship` overriding the named map's or list's),
// or an inlined atom (scalar: numeric|string|boolean|untyped, list, map; several for a type like the deduced one).
// Struct fields may have a `default`. `__untyped_deduced_` is the schema's own deduced type. A reference to a
// type the document does not define is nullptr (no type). Throws std::invalid_argument on a malformed document.
Schema schema_from_yaml(std::string_view yaml);

// A value as smd's ParseableType.FromYAML reads it (null for an empty document).
boost::json::value value_from_yaml(std::string_view yaml);

}  // namespace kapi::structured_merge::testing
