#pragma once
// A C++ rendering of structured-merge-diff's internal/fixture: a test case is a sequence of Apply, ForceApply,
// Update and ExtractApply operations by managers at apiVersions, run through an Updater from an empty object, and
// the live object and managers expected at the end. Objects are written in YAML, indented as the test likes
// (the common indentation is removed, as FixTabsOrDie removes smd's tabs); field sets with P/KBF/V/NS as smd's
// tests write them with _P/_KBF/_V/_NS.
#include "server/structured_merge/fieldpath.h"
#include "server/structured_merge/schema.h"
#include "server/structured_merge/typed.h"
#include "server/structured_merge/update.h"
#include "tests/unit/server/structured_merge/typed_test_util.h"

#include <boost/json/value.hpp>

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace kapi::structured_merge::testing {

// Reads test objects at an apiVersion (fixture.Parser).
class Parser {
 public:
  virtual ~Parser() = default;
  virtual const Schema& schema() const = 0;
  virtual TypeRef type(const std::string& api_version) const = 0;
  // The object in `yaml` (indented as the test likes) as a value of the version's type.
  TypedValue parse(const std::string& yaml, const std::string& api_version, bool allow_duplicates = false) const;
  // FromUnstructured(nil): the live object before anything was applied or updated.
  TypedValue empty(const std::string& api_version) const;
};

// Every version is one type of a schema (fixture.SameVersionParser); the schema is smd's YAML schema format.
class SameVersionParser : public Parser {
 public:
  SameVersionParser(std::string schema_yaml, const std::string& type_name);
  const Schema& schema() const override { return schema_; }
  TypeRef type(const std::string&) const override { return type_; }

 private:
  Schema schema_;
  TypeRef type_ = nullptr;
};

// Each version is the schema's type of that name (a typed.Parser used as a fixture parser).
class SchemaParser : public Parser {
 public:
  explicit SchemaParser(std::string schema_yaml);
  const Schema& schema() const override { return schema_; }
  TypeRef type(const std::string& api_version) const override;

 private:
  Schema schema_;
};

// Every version is the deduced type (fixture.DeducedParser).
class DeducedParser : public Parser {
 public:
  const Schema& schema() const override { return schema_; }
  TypeRef type(const std::string&) const override { return schema_.deduced(); }

 private:
  Schema schema_;
};

// Returns the object as it is, for any non-empty version (fixture's dummyConverter).
class DummyConverter : public Converter {
 public:
  TypedValue convert(const TypedValue& object, const std::string& api_version) const override;
};

// A non-forced apply; with `conflicts`, the apply must fail with exactly those (in any order), or succeed when
// they are empty.
struct Apply {
  std::string manager;
  std::string api_version;
  std::string object;
  std::optional<std::vector<Conflict>> conflicts = std::nullopt;
};
struct ForceApply {
  std::string manager;
  std::string api_version;
  std::string object;
};
// An apply of what the manager owns of the live object merged with `object` (fixture.ExtractApply).
struct ExtractApply {
  std::string manager;
  std::string api_version;
  std::string object;
};
struct Update {
  std::string manager;
  std::string api_version;
  std::string object;
};
// Switches to another schema without a new version (fixture.ChangeParser).
struct ChangeParser {
  const Parser* parser;
};
using Operation = std::variant<Apply, ForceApply, ExtractApply, Update, ChangeParser>;

struct TestCase {
  std::vector<Operation> ops;
  // When not empty, the live object expected at the end, at `api_version`.
  std::string object;
  std::string api_version;
  // When set, the managers expected at the end (sets and versions; smd's fixture does not compare `applied`).
  std::optional<ManagedFields> managed;
  bool return_input_on_noop = false;
  std::map<std::string, Set> ignored_fields;
};

// Runs `test` and reports what differs as gtest failures (TestCase.TestWithConverter). Returns false when an
// operation failed (its error is in `error` when given, else a test failure).
bool run(const TestCase& test, const Parser& parser, const Converter& converter, std::string* error = nullptr);
inline bool run(const TestCase& test, const Parser& parser, std::string* error = nullptr) {
  return run(test, parser, DummyConverter(), error);
}

}  // namespace kapi::structured_merge::testing
