#include "tests/unit/server/structured_merge/update_fixture.h"

#include "tests/unit/server/structured_merge/smd_schema_yaml.h"

#include <gtest/gtest.h>
#include <boost/json/serialize.hpp>

#include <algorithm>
#include <sstream>
#include <stdexcept>

namespace kapi::structured_merge::testing {
namespace {

// Removes the first line's indentation from every line (FixTabsOrDie, for spaces as much as tabs), and a first
// empty line.
std::string fix_indentation(const std::string& yaml) {
  std::vector<std::string> lines;
  std::istringstream in(yaml);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  if (lines.size() > 1 && lines.front().empty()) lines.erase(lines.begin());
  if (lines.empty()) return "";
  std::size_t indent = lines.front().find_first_not_of(" \t");
  if (indent == std::string::npos) indent = lines.front().size();
  std::string fixed;
  for (const std::string& line : lines) {
    bool blank = line.find_first_not_of(" \t") == std::string::npos;
    if (blank) {
      fixed += '\n';
      continue;
    }
    if (line.compare(0, indent, lines.front(), 0, indent) != 0) {
      throw std::invalid_argument("line does not start with the first line's indentation: " + line);
    }
    fixed += line.substr(indent) + '\n';
  }
  return fixed;
}

std::string describe(const ManagedFields& managers) {
  std::string text;
  for (const auto& [manager, versioned] : managers) {
    text += "  " + manager + " (" + versioned.api_version + (versioned.applied ? ", applied" : "") +
            "): " + versioned.set.to_fields_v1() + "\n";
  }
  return text.empty() ? "  (none)\n" : text;
}

std::string describe(const std::vector<Conflict>& conflicts) {
  std::string text;
  for (const Conflict& conflict : conflicts)
    text += "  " + conflict.manager + ": " + path_to_string(conflict.path) + "\n";
  return text.empty() ? "  (none)\n" : text;
}

bool same_conflicts(const std::vector<Conflict>& lhs, const std::vector<Conflict>& rhs) {
  auto contains_all = [](const std::vector<Conflict>& all, const std::vector<Conflict>& some) {
    return std::all_of(some.begin(), some.end(), [&](const Conflict& wanted) {
      return std::any_of(all.begin(), all.end(), [&](const Conflict& found) {
        return found.manager == wanted.manager && compare_paths(found.path, wanted.path) == 0;
      });
    });
  };
  return contains_all(lhs, rhs) && contains_all(rhs, lhs);
}

// ManagedFields.Difference: the managers whose version or set differs.
std::vector<std::string> differing_managers(const ManagedFields& got, const ManagedFields& wanted) {
  std::vector<std::string> differing;
  for (const auto& [manager, versioned] : got) {
    auto expected = wanted.find(manager);
    if (expected == wanted.end() || expected->second.api_version != versioned.api_version ||
        !(expected->second.set == versioned.set)) {
      differing.push_back(manager);
    }
  }
  for (const auto& [manager, versioned] : wanted) {
    if (!got.contains(manager)) differing.push_back(manager);
  }
  return differing;
}

// fixture.State: the live object and its managers, changed by each operation.
class State {
 public:
  State(const Parser& parser, const Updater& updater, const Converter& converter)
      : parser_(&parser), updater_(updater), converter_(converter) {}

  void operator()(const Apply& apply) {
    std::optional<std::vector<Conflict>> conflicts;
    try {
      apply_object(parser_->parse(apply.object, apply.api_version), apply.api_version, apply.manager, false);
    } catch (const Conflicts& error) {
      if (!apply.conflicts) throw;
      conflicts = error.conflicts();
    }
    if (!apply.conflicts) return;
    std::vector<Conflict> got = conflicts.value_or(std::vector<Conflict>{});
    if (!same_conflicts(got, *apply.conflicts)) {
      throw std::runtime_error("expected conflicts:\n" + describe(*apply.conflicts) + "got:\n" + describe(got));
    }
  }

  void operator()(const ForceApply& apply) {
    apply_object(parser_->parse(apply.object, apply.api_version), apply.api_version, apply.manager, true);
  }

  void operator()(const ExtractApply& apply) {
    TypedValue object = parser_->parse(apply.object, apply.api_version);
    if (!live_) {
      apply_object(object, apply.api_version, apply.manager, true);
      return;
    }
    TypedValue current = converter_.convert(*live_, apply.api_version);
    Set owned;
    if (auto found = managers_.find(apply.manager); found != managers_.end()) {
      if (found->second.api_version != apply.api_version) {
        throw std::runtime_error("existing managed fieldpath set APIVersion (" + found->second.api_version +
                                 ") differs from desired (" + apply.api_version + "), unable to extract");
      }
      // Extracting a set takes everything under its first path: only its leaves say what the manager owns.
      owned = found->second.set.leaves();
    }
    apply_object(merge(extract_items(current, owned), object), apply.api_version, apply.manager, true);
  }

  void operator()(const Update& update) {
    TypedValue object = parser_->parse(update.object, update.api_version, /*allow_duplicates=*/true);
    init(update.api_version);
    live_ = converter_.convert(*live_, update.api_version);
    managers_ = updater_.update(*live_, object, update.api_version, managers_, update.manager);
    live_ = std::move(object);
  }

  void operator()(const ChangeParser& change) {
    parser_ = change.parser;
    if (!live_) return;
    // The live object's type by name in the new schema: the same type, changed.
    TypeRef type = parser_->schema().find(live_->type->name);
    if (type == nullptr) throw std::runtime_error("type " + live_->type->name + " is not in the new schema");
    live_ = as_typed(boost::json::value(live_->value), parser_->schema(), type);
  }

  // The live object at `api_version`, as the YAML `expected` would be.
  std::optional<std::string> compare_live(const std::string& expected, const std::string& api_version) {
    init(api_version);
    TypedValue wanted = parser_->parse(expected, api_version, /*allow_duplicates=*/true);
    TypedValue live = converter_.convert(*live_, api_version);
    if (compare_values(wanted.value, live.value) == 0) return std::nullopt;
    return "expected " + boost::json::serialize(wanted.value) + "\ngot      " + boost::json::serialize(live.value);
  }

  const ManagedFields& managers() const { return managers_; }

 private:
  void init(const std::string& api_version) {
    if (!live_) live_ = parser_->empty(api_version);
  }

  void apply_object(const TypedValue& object, const std::string& api_version, const std::string& manager, bool force) {
    init(api_version);
    live_ = converter_.convert(*live_, api_version);
    auto [applied, managers] = updater_.apply(*live_, object, api_version, managers_, manager, force);
    managers_ = std::move(managers);
    if (applied) live_ = std::move(*applied);
  }

  const Parser* parser_;
  const Updater& updater_;
  const Converter& converter_;
  std::optional<TypedValue> live_;
  ManagedFields managers_;
};

}  // namespace

TypedValue Parser::parse(const std::string& yaml, const std::string& api_version, bool allow_duplicates) const {
  return as_typed(value_from_yaml(fix_indentation(yaml)), schema(), type(api_version), allow_duplicates);
}

TypedValue Parser::empty(const std::string& api_version) const {
  return as_typed(boost::json::value(), schema(), type(api_version));
}

SameVersionParser::SameVersionParser(std::string schema_yaml, const std::string& type_name)
    : schema_(schema_from_yaml(schema_yaml)), type_(schema_.find(type_name)) {
  if (type_ == nullptr) throw std::invalid_argument("no type " + type_name + " in the schema");
}

SchemaParser::SchemaParser(std::string schema_yaml) : schema_(schema_from_yaml(schema_yaml)) {}

TypeRef SchemaParser::type(const std::string& api_version) const {
  TypeRef type = schema_.find(api_version);
  if (type == nullptr) throw std::invalid_argument("no type " + api_version + " in the schema");
  return type;
}

TypedValue DummyConverter::convert(const TypedValue& object, const std::string& api_version) const {
  if (api_version.empty()) throw std::invalid_argument("cannot convert to invalid version: \"\"");
  return object;
}

bool run(const TestCase& test, const Parser& parser, const Converter& converter, std::string* error) {
  Updater updater(converter, UpdaterOptions{test.ignored_fields, test.return_input_on_noop});
  State state(parser, updater, converter);
  for (std::size_t i = 0; i < test.ops.size(); ++i) {
    try {
      std::visit(state, test.ops[i]);
    } catch (const std::exception& failure) {
      std::string message = "failed operation " + std::to_string(i) + ": " + failure.what();
      if (error != nullptr) {
        *error = message;
      } else {
        ADD_FAILURE() << message;
      }
      return false;
    }
  }
  if (!test.object.empty()) {
    if (std::optional<std::string> difference = state.compare_live(test.object, test.api_version)) {
      ADD_FAILURE() << "the live object differs:\n" << *difference;
    }
  }
  if (test.managed) {
    std::vector<std::string> differing = differing_managers(state.managers(), *test.managed);
    if (!differing.empty()) {
      ADD_FAILURE() << "managers differ (" << differing.front() << "...); expected:\n"
                    << describe(*test.managed) << "got:\n"
                    << describe(state.managers());
    }
  }
  for (const auto& [manager, versioned] : state.managers()) {
    if (versioned.set.empty()) ADD_FAILURE() << "manager " << manager << " has an empty set";
  }
  return true;
}

}  // namespace kapi::structured_merge::testing
