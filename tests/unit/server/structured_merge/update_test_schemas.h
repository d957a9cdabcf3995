#pragma once
// The schemas of structured-merge-diff's merge tests (merge/*_test.go), as fixture parsers, and their converters.
#include "tests/unit/server/structured_merge/update_fixture.h"

#include <string>
#include <vector>

namespace kapi::structured_merge::testing {

const Parser& leaf_fields_parser();
const Parser& associative_list_parser();
const Parser& set_fields_parser();
const Parser& nested_type_parser();
const Parser& struct_multiversion_parser();
const Parser& atomic_map_parser();
const Parser& multiversion_with_reliant_fields_parser();
const Parser& version_doesnt_match_type_name_parser();
const Parser& preserve_unknown_parser();
const Parser& duplicates_parser();
const Parser& extract_parser();
const Parser& override_struct_type_parser();
const Parser& struct_parser();
const Parser& struct_with_atomic_parser();
const Parser& port_list_parser();
const Parser& book_parser();
const Parser& deduced_parser();

// Renames the fields that end in the object's version (its type's name) to end in the target version instead:
// "scalarField_v1" at v2 is "scalarField_v2" (merge tests' renamingConverter).
class RenamingConverter : public Converter {
 public:
  explicit RenamingConverter(const Parser& parser) : parser_(parser) {}
  TypedValue convert(const TypedValue& object, const std::string& api_version) const override;

 private:
  const Parser& parser_;
};

// Renames the keys under the object's first member to their first letter repeated as many times as the version's
// number ("a" at v3 is "aaa"), and drops their values (merge tests' repeatingConverter, which rewrites the YAML
// lines of mapOfMapsRecursive). Versions other than v<number> are missing.
class RepeatingConverter : public Converter {
 public:
  explicit RepeatingConverter(const Parser& parser) : parser_(parser) {}
  TypedValue convert(const TypedValue& object, const std::string& api_version) const override;

 private:
  const Parser& parser_;
};

// Converts only to the listed versions, MissingVersion otherwise (merge tests' specificVersionConverter).
class SpecificVersionConverter : public Converter {
 public:
  explicit SpecificVersionConverter(std::vector<std::string> accepted) : accepted_(std::move(accepted)) {}
  void accept(std::vector<std::string> accepted) { accepted_ = std::move(accepted); }
  TypedValue convert(const TypedValue& object, const std::string& api_version) const override;

 private:
  std::vector<std::string> accepted_;
};

// v2's required_field_bar is v1's field_foo_rely_on_bar; converting to v1 fails without it (merge tests'
// reliantFieldsConverter). The versions' types are named `v1_type` and `v2_type` in the parser's schema (as kube's
// are not named after versions: versionDoesntMatchTypenameConverter).
class ReliantFieldsConverter : public Converter {
 public:
  ReliantFieldsConverter(const Parser& parser, std::string v1_type, std::string v2_type)
      : parser_(parser), v1_type_(std::move(v1_type)), v2_type_(std::move(v2_type)) {}
  TypedValue convert(const TypedValue& object, const std::string& api_version) const override;

 private:
  const Parser& parser_;
  std::string v1_type_;
  std::string v2_type_;
};

}  // namespace kapi::structured_merge::testing
