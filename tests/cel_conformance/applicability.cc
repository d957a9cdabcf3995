// The applicability rules of kapi's cel-spec conformance run (README.md in tests/data/cel-spec states them). cel-go
// runs the same files with protobuf types registered (conformance/conformance_test.go); kube never registers any.
#include "tests/cel_conformance/applicability.h"

#include <re2/re2.h>

#include <fstream>
#include <stdexcept>
#include <string_view>

namespace kapi::cel::conformance {
namespace {

namespace expr = ::cel::expr;

bool is_time_message(std::string_view name) {
  return name == "google.protobuf.Timestamp" || name == "google.protobuf.Duration";
}

// The names CEL gives its own types; a type value with any other dotted name is a protobuf message or enum.
bool is_cel_type_name(std::string_view name) {
  return name.find('.') == std::string_view::npos || is_time_message(name);
}

std::optional<std::string> type_reason(const expr::Type& type) {
  switch (type.type_kind_case()) {
    case expr::Type::kWrapper:
      return "protobuf wrapper type";
    case expr::Type::kWellKnown:
      if (type.well_known() == expr::Type::ANY) return "google.protobuf.Any";
      return std::nullopt;
    case expr::Type::kMessageType:
      if (is_time_message(type.message_type())) return std::nullopt;
      return "protobuf message type " + type.message_type();
    case expr::Type::kFunction:
      return "function type";
    case expr::Type::kListType:
      return type_reason(type.list_type().elem_type());
    case expr::Type::kMapType:
      if (auto reason = type_reason(type.map_type().key_type())) return reason;
      return type_reason(type.map_type().value_type());
    case expr::Type::kType:
      return type_reason(type.type());
    case expr::Type::kAbstractType:
      for (const expr::Type& parameter : type.abstract_type().parameter_types()) {
        if (auto reason = type_reason(parameter)) return reason;
      }
      return std::nullopt;
    default:
      return std::nullopt;
  }
}

// Values nest as deep as the test file writes them: a handful of levels.
std::optional<std::string> value_reason(const expr::Value& value) {
  switch (value.kind_case()) {
    case expr::Value::kEnumValue:
      return "protobuf enum value";
    case expr::Value::kObjectValue: {
      std::string_view url = value.object_value().type_url();
      std::string_view name = url.substr(url.rfind('/') + 1);
      if (is_time_message(name)) return std::nullopt;
      return "protobuf message value " + std::string(name);
    }
    case expr::Value::kTypeValue:
      if (is_cel_type_name(value.type_value())) return std::nullopt;
      return "protobuf type value " + value.type_value();
    case expr::Value::kListValue:
      for (const expr::Value& element : value.list_value().values()) {
        if (auto reason = value_reason(element)) return reason;
      }
      return std::nullopt;
    case expr::Value::kMapValue:
      for (const auto& entry : value.map_value().entries()) {
        if (auto reason = value_reason(entry.key())) return reason;
        if (auto reason = value_reason(entry.value())) return reason;
      }
      return std::nullopt;
    default:
      return std::nullopt;
  }
}

// Protobuf names in the expression text: the test message types and their enums, and google.protobuf messages
// other than Timestamp and Duration (wrappers, Any, Struct, Value, ListValue).
std::optional<std::string> expression_reason(const std::string& text) {
  static const RE2 test_messages(
      R"(\b(TestAllTypes|NestedTestAllTypes|TestRequired|GlobalEnum|NestedEnum|NestedMessage|cel\.expr\.conformance)\b)");
  static const RE2 protobuf_name(R"(google\.protobuf\.([A-Za-z0-9_]+))");
  std::string name;
  if (RE2::PartialMatch(text, test_messages, &name)) return "protobuf test message " + name;
  re2::StringPiece input(text);
  while (RE2::FindAndConsume(&input, protobuf_name, &name)) {
    if (!is_time_message("google.protobuf." + name)) return "protobuf message google.protobuf." + name;
  }
  return std::nullopt;
}

std::string trim(std::string_view text) {
  std::size_t begin = text.find_first_not_of(" \t\r");
  if (begin == std::string_view::npos) return {};
  std::size_t end = text.find_last_not_of(" \t\r");
  return std::string(text.substr(begin, end - begin + 1));
}

}  // namespace

Applicability Applicability::load(const std::filesystem::path& exceptions_file) {
  std::ifstream in(exceptions_file);
  if (!in) throw std::runtime_error("cannot read " + exceptions_file.string());
  Applicability rules;
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    std::string content = trim(std::string_view(line).substr(0, line.find('#')));
    if (content.empty()) continue;
    std::size_t space = content.find_first_of(" \t");
    if (space == std::string::npos) {
      throw std::runtime_error(exceptions_file.string() + ":" + std::to_string(number) + ": no reason given");
    }
    rules.exceptions_.insert_or_assign(content.substr(0, space), trim(content.substr(space)));
  }
  return rules;
}

std::vector<std::string> Applicability::unused_exceptions(const std::vector<std::string>& ids) const {
  std::vector<std::string> unused;
  for (const auto& [listed, reason] : exceptions_) {
    bool used = false;
    for (const std::string& id : ids) {
      if (id == listed || (id.starts_with(listed) && id[listed.size()] == '/')) {
        used = true;
        break;
      }
    }
    if (!used) unused.push_back(listed);
  }
  return unused;
}

std::optional<std::string> Applicability::not_applicable_reason(
    const std::string& id, const expr::conformance::test::SimpleTest& test) const {
  // A listed id names a test, or every test of a section: "file/section" matches "file/section/...".
  for (std::string_view prefix = id;;) {
    if (auto it = exceptions_.find(prefix); it != exceptions_.end()) return it->second;
    std::size_t slash = prefix.rfind('/');
    if (slash == std::string_view::npos) break;
    prefix = prefix.substr(0, slash);
  }
  using Matcher = expr::conformance::test::SimpleTest;
  if (test.result_matcher_case() == Matcher::kUnknown || test.result_matcher_case() == Matcher::kAnyUnknowns) {
    return "unknowns (partial evaluation)";
  }
  if (test.disable_macros()) return "macros disabled (kube always expands them)";
  if (!test.locale().empty()) return "locale";
  if (auto reason = expression_reason(test.expr())) return reason;
  for (const expr::Decl& decl : test.type_env()) {
    if (decl.has_ident()) {
      if (auto reason = type_reason(decl.ident().type())) return reason;
    } else if (decl.has_function()) {
      for (const auto& overload : decl.function().overloads()) {
        for (const expr::Type& param : overload.params()) {
          if (auto reason = type_reason(param)) return reason;
        }
        if (auto reason = type_reason(overload.result_type())) return reason;
      }
    }
  }
  for (const auto& [name, binding] : test.bindings()) {
    if (binding.has_unknown()) return "unknown binding (partial evaluation)";
    if (binding.has_value()) {
      if (auto reason = value_reason(binding.value())) return reason;
    }
  }
  if (test.has_value()) {
    if (auto reason = value_reason(test.value())) return reason;
  }
  if (test.has_typed_result()) {
    if (auto reason = value_reason(test.typed_result().result())) return reason;
    if (auto reason = type_reason(test.typed_result().deduced_type())) return reason;
  }
  // Last, so that a test needing protobuf messages says so rather than naming its container.
  if (!test.container().empty()) return "container " + test.container() + " (kube compiles without one)";
  return std::nullopt;
}

}  // namespace kapi::cel::conformance
