#include "tests/unit/server/structured_merge/update_test_schemas.h"

#include <boost/json/object.hpp>

#include <algorithm>
#include <stdexcept>
#include <string_view>
#include <vector>

namespace kapi::structured_merge::testing {
namespace {

// Every member name ending in `old_suffix` ends in `new_suffix` instead, at any depth.
boost::json::value rename_fields(const boost::json::value& value, std::string_view old_suffix,
                                 std::string_view new_suffix) {
  if (value.is_object()) {
    boost::json::object renamed;
    for (const auto& [key, member] : value.get_object()) {
      std::string name(key);
      if (name.ends_with(old_suffix)) name = name.substr(0, name.size() - old_suffix.size()) + std::string(new_suffix);
      renamed[name] = rename_fields(member, old_suffix, new_suffix);
    }
    return renamed;
  }
  if (value.is_array()) {
    boost::json::array renamed;
    for (const auto& item : value.get_array()) renamed.push_back(rename_fields(item, old_suffix, new_suffix));
    return renamed;
  }
  return value;
}

// The nested keys as repeatingConverter's YAML lines have them: "a: ..." becomes "aaa:", a line of its own whose
// value is null unless nested lines follow. yaml.Marshal writes the keys sorted, and of two that become one ("a"
// and "aa" at v1), the later line wins.
boost::json::value repeat_keys(const boost::json::object& members, int times) {
  std::vector<const boost::json::key_value_pair*> sorted;
  for (const auto& member : members) sorted.push_back(&member);
  std::sort(sorted.begin(), sorted.end(), [](const auto* lhs, const auto* rhs) { return lhs->key() < rhs->key(); });
  boost::json::object repeated;
  for (const boost::json::key_value_pair* entry : sorted) {
    std::string_view key = entry->key();
    const boost::json::value& member = entry->value();
    std::string name(static_cast<std::size_t>(times), key.empty() ? ' ' : key.front());
    bool nested = member.is_object() && !member.get_object().empty();
    repeated[name] = nested ? repeat_keys(member.get_object(), times) : boost::json::value();
  }
  return repeated;
}

}  // namespace

// leaf_test.go: leafFieldsParser
const Parser& leaf_fields_parser() {
  static const SameVersionParser kParser(R"(types:
- name: leafFields
  map:
    fields:
    - name: numeric
      type:
        scalar: numeric
    - name: string
      type:
        scalar: string
    - name: bool
      type:
        scalar: boolean)",
                                         "leafFields");
  return kParser;
}

// key_test.go: associativeListParser
const Parser& associative_list_parser() {
  static const SameVersionParser kParser(R"(types:
- name: type
  map:
    fields:
      - name: list
        type:
          namedType: associativeList
- name: associativeList
  list:
    elementType:
      namedType: myElement
    elementRelationship: associative
    keys:
    - name
- name: myElement
  map:
    fields:
    - name: name
      type:
        scalar: string
    - name: value
      type:
        scalar: numeric
)",
                                         "type");
  return kParser;
}

// set_test.go: setFieldsParser
const Parser& set_fields_parser() {
  static const SameVersionParser kParser(R"(types:
- name: sets
  map:
    fields:
    - name: list
      type:
        list:
          elementType:
            scalar: string
          elementRelationship: associative)",
                                         "sets");
  return kParser;
}

// nested_test.go: nestedTypeParser
const Parser& nested_type_parser() {
  static const SameVersionParser kParser(R"(types:
- name: type
  map:
    fields:
      - name: listOfLists
        type:
          namedType: listOfLists
      - name: listOfMaps
        type:
          namedType: listOfMaps
      - name: mapOfLists
        type:
          namedType: mapOfLists
      - name: mapOfMaps
        type:
          namedType: mapOfMaps
      - name: mapOfMapsRecursive
        type:
          namedType: mapOfMapsRecursive
      - name: struct
        type:
          namedType: struct
- name: struct
  map:
    fields:
    - name: name
      type:
        scalar: string
    - name: value
      type:
        scalar: numeric
- name: listOfLists
  list:
    elementType:
      map:
        fields:
        - name: name
          type:
            scalar: string
        - name: value
          type:
            namedType: list
    elementRelationship: associative
    keys:
    - name
- name: list
  list:
    elementType:
      scalar: string
    elementRelationship: associative
- name: listOfMaps
  list:
    elementType:
      map:
        fields:
        - name: name
          type:
            scalar: string
        - name: value
          type:
            namedType: map
    elementRelationship: associative
    keys:
    - name
- name: map
  map:
    elementType:
      scalar: string
    elementRelationship: associative
- name: mapOfLists
  map:
    elementType:
      namedType: list
    elementRelationship: associative
- name: mapOfMaps
  map:
    elementType:
      namedType: map
    elementRelationship: associative
- name: mapOfMapsRecursive
  map:
    elementType:
      namedType: mapOfMapsRecursive
    elementRelationship: associative
)",
                                         "type");
  return kParser;
}

// multiple_appliers_test.go: structMultiversionParser
const Parser& struct_multiversion_parser() {
  static const SchemaParser kParser(R"(types:
- name: v1
  map:
    fields:
      - name: struct
        type:
          namedType: struct
      - name: version
        type:
          scalar: string
- name: struct
  map:
    fields:
      - name: name
        type:
          scalar: string
      - name: scalarField_v1
        type:
          scalar: string
      - name: complexField_v1
        type:
          namedType: complex
- name: complex
  map:
    fields:
      - name: name
        type:
          scalar: string
- name: v2
  map:
    fields:
      - name: struct
        type:
          namedType: struct_v2
      - name: version
        type:
          scalar: string
- name: struct_v2
  map:
    fields:
      - name: name
        type:
          scalar: string
      - name: scalarField_v2
        type:
          scalar: string
      - name: complexField_v2
        type:
          namedType: complex_v2
- name: complex_v2
  map:
    fields:
      - name: name
        type:
          scalar: string
- name: v3
  map:
    fields:
      - name: struct
        type:
          namedType: struct_v3
      - name: version
        type:
          scalar: string
- name: struct_v3
  map:
    fields:
      - name: name
        type:
          scalar: string
      - name: scalarField_v3
        type:
          scalar: string
      - name: complexField_v3
        type:
          namedType: complex_v3
- name: complex_v3
  map:
    fields:
      - name: name
        type:
          scalar: string
)");
  return kParser;
}

// multiple_appliers_test.go: atomicMapParser
const Parser& atomic_map_parser() {
  static const SchemaParser kParser(R"(types:
- name: v1
  map:
    fields:
      - name: atomicMap
        type:
          namedType: atomicMap
- name: atomicMap
  map:
    fields:
      - name: field1
        type:
          scalar: string
      - name: field2
        type:
          scalar: string
    elementRelationship: atomic
)");
  return kParser;
}

// multiple_appliers_test.go: multiversionWithReliantFieldsParser
const Parser& multiversion_with_reliant_fields_parser() {
  static const SchemaParser kParser(R"(types:
- name: v1
  map:
    fields:
      - name: field_foo_rely_on_bar
        type:
          scalar: string
      - name: common_field
        type:
          scalar: string
- name: v2
  map:
    fields:
      - name: required_field_bar
        type:
          scalar: string
      - name: common_field
        type:
          scalar: string
)");
  return kParser;
}

// multiple_appliers_test.go: versionDoesntMatchTypeName
const Parser& version_doesnt_match_type_name_parser() {
  static const SchemaParser kParser(R"(types:
- name: TypeV1
  map:
    fields:
      - name: field_foo_rely_on_bar
        type:
          scalar: string
      - name: common_field
        type:
          scalar: string
- name: TypeV2
  map:
    fields:
      - name: required_field_bar
        type:
          scalar: string
      - name: common_field
        type:
          scalar: string
)");
  return kParser;
}

// preserve_unknown_test.go: preserveUnknownParser
const Parser& preserve_unknown_parser() {
  static const SameVersionParser kParser(R"(types:
- name: type
  map:
    fields:
      - name: num
        type:
          scalar: numeric
    elementType:
      scalar: string
)",
                                         "type");
  return kParser;
}

// duplicates_test.go: duplicatesParser
const Parser& duplicates_parser() {
  static const SameVersionParser kParser(R"(types:
- name: type
  map:
    fields:
      - name: list
        type:
          namedType: associativeList
      - name: unrelated
        type:
          scalar: numeric
      - name: set
        type:
          namedType: set
- name: associativeList
  list:
    elementType:
      namedType: myElement
    elementRelationship: associative
    keys:
    - name
- name: myElement
  map:
    fields:
    - name: name
      type:
        scalar: string
    - name: value1
      type:
        scalar: numeric
    - name: value2
      type:
        scalar: numeric
- name: set
  list:
    elementType:
      scalar: numeric
    elementRelationship: associative
)",
                                         "type");
  return kParser;
}

// extract_apply_test.go: extractParser
const Parser& extract_parser() {
  static const SameVersionParser kParser(R"(types:
- name: sets
  map:
    fields:
    - name: list
      type:
        list:
          elementType:
            scalar: string
          elementRelationship: associative
    - name: atomicList
      type:
        list:
          elementType:
            scalar: string
          elementRelationship: atomic
    - name: map
      type:
        map:
          elementType:
            scalar: string
          elementRelationship: separable
    - name: atomicMap
      type:
        map:
          elementType:
            scalar: string
          elementRelationship: atomic)",
                                         "sets");
  return kParser;
}

// field_level_overrides_test.go: overrideStructTypeParser
const Parser& override_struct_type_parser() {
  static const SameVersionParser kParser(R"(
        types:
        - name: type
          map:
            fields:
              - name: associativeListReference
                type:
                  namedType: associativeList
                  elementRelationship: atomic
              - name: separableInlineList
                type:
                  list:
                    elementType:
                      scalar: numeric
                    elementRelationship: atomic
                  elementRelationship: associative
              - name: separableMapReference
                type:
                  namedType: atomicMap
                  elementRelationship: separable
              - name: atomicMapReference
                type:
                  namedType: unspecifiedMap
                  elementRelationship: atomic

        - name: associativeList
          list:
            elementType:
              namedType: unspecifiedMap
              elementRelationship: atomic
            elementRelationship: associative
            keys:
            - name
        - name: unspecifiedMap
          map:
            fields:
            - name: name
              type:
                scalar: string
            - name: value
              type:
                scalar: numeric
        - name: atomicMap
          map:
            elementRelationship: atomic
            fields:
            - name: name
              type:
                scalar: string
            - name: value
              type:
                scalar: numeric
    )",
                                         "type");
  return kParser;
}

// schema_change_test.go: structParser
const Parser& struct_parser() {
  static const SchemaParser kParser(R"(types:
- name: v1
  map:
    fields:
      - name: struct
        type:
          namedType: struct
- name: struct
  map:
    fields:
    - name: numeric
      type:
        scalar: numeric
    - name: string
      type:
        scalar: string)");
  return kParser;
}

// schema_change_test.go: structWithAtomicParser
const Parser& struct_with_atomic_parser() {
  static const SchemaParser kParser(R"(types:
- name: v1
  map:
    fields:
      - name: struct
        type:
          namedType: struct
- name: struct
  map:
    fields:
    - name: numeric
      type:
        scalar: numeric
    - name: string
      type:
        scalar: string
    elementRelationship: atomic)");
  return kParser;
}

// default_keys_test.go: portListParser
const Parser& port_list_parser() {
  static const SchemaParser kParser(R"(types:
- name: v1
  map:
    fields:
      - name: containerPorts
        type:
          list:
            elementType:
              map:
                fields:
                - name: port
                  type:
                    scalar: numeric
                - name: protocol
                  default: "TCP"
                  type:
                    scalar: string
                - name: name
                  type:
                    scalar: string
            elementRelationship: associative
            keys:
            - port
            - protocol
)");
  return kParser;
}

// default_keys_test.go: bookParser
const Parser& book_parser() {
  static const SchemaParser kParser(R"(types:
- name: v1
  map:
    fields:
      - name: book
        type:
          list:
            elementType:
              map:
                fields:
                - name: chapter
                  default: 1
                  type:
                    scalar: numeric
                - name: section
                  default: "A"
                  type:
                    scalar: string
                - name: sentences
                  type:
                    list:
                      elementType:
                        map:
                          fields:
                          - name: page
                            default: 2.0
                            type:
                              scalar: numeric
                          - name: line
                            default: 3
                            type:
                              scalar: numeric
                          - name: text
                            type:
                              scalar: string
                      elementRelationship: associative
                      keys:
                      - page
                      - line
            elementRelationship: associative
            keys:
            - chapter
            - section
)");
  return kParser;
}

const Parser& deduced_parser() {
  static const DeducedParser kParser;
  return kParser;
}

TypedValue RenamingConverter::convert(const TypedValue& object, const std::string& api_version) const {
  const std::string& version = object.type->name;
  return as_typed(rename_fields(object.value, version, api_version), parser_.schema(), parser_.type(api_version));
}

TypedValue RepeatingConverter::convert(const TypedValue& object, const std::string& api_version) const {
  bool numbered = api_version.size() >= 2 && api_version.size() < 8 && api_version.front() == 'v' &&
                  std::all_of(api_version.begin() + 1, api_version.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (!numbered) throw MissingVersion("cannot convert to invalid version");
  int times = std::stoi(api_version.substr(1));
  boost::json::value converted = object.value;
  // yaml.Marshal sorts the members; the converter stops at the second top-level line.
  if (object.value.is_object() && !object.value.get_object().empty()) {
    const boost::json::object& members = object.value.get_object();
    auto first = std::min_element(members.begin(), members.end(),
                                  [](const auto& lhs, const auto& rhs) { return lhs.key() < rhs.key(); });
    const boost::json::value& member = first->value();
    bool nested = member.is_object() && !member.get_object().empty();
    converted = boost::json::object{{first->key(), nested ? repeat_keys(member.get_object(), times) : member}};
  }
  return as_typed(std::move(converted), parser_.schema(), parser_.type(api_version));
}

TypedValue SpecificVersionConverter::convert(const TypedValue& object, const std::string& api_version) const {
  if (std::find(accepted_.begin(), accepted_.end(), api_version) == accepted_.end()) {
    throw MissingVersion("Unknown version: " + api_version);
  }
  return object;
}

TypedValue ReliantFieldsConverter::convert(const TypedValue& object, const std::string& api_version) const {
  std::string from_version = object.type->name == v1_type_ ? "v1" : object.type->name == v2_type_ ? "v2" : "";
  if (from_version.empty()) throw std::runtime_error("invalid typename: " + object.type->name);
  if (from_version == api_version) return object;
  if (api_version == "v1") {
    if (!object.value.is_object() || !object.value.get_object().contains("required_field_bar")) {
      throw std::runtime_error("missing requried field bar");
    }
    return as_typed(rename_fields(object.value, "required_field_bar", "field_foo_rely_on_bar"), parser_.schema(),
                    parser_.schema().find(v1_type_));
  }
  if (api_version == "v2") {
    return as_typed(rename_fields(object.value, "field_foo_rely_on_bar", "required_field_bar"), parser_.schema(),
                    parser_.schema().find(v2_type_));
  }
  throw MissingVersion("cannot convert to invalid version");
}

}  // namespace kapi::structured_merge::testing
