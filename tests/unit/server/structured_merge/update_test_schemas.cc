// The schemas of smd's merge tests, as they wrote them (typed.NewParser documents).
#include "tests/unit/server/structured_merge/update_test_schemas.h"

namespace kapi::structured_merge::testing {
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

}  // namespace kapi::structured_merge::testing
