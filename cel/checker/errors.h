#pragma once
// The checker's error messages, worded as cel-go's checker/errors.go words them. Internal to cel/checker.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "cel/compile.h"
#include "cel/types.h"

namespace kapi::cel::checker {

class TypeErrors {
 public:
  void field_type_mismatch(std::int64_t id, std::string_view field, const Type& field_type, const Type& value);
  // args include the receiver first when `member`.
  void no_matching_overload(std::int64_t id, std::string_view function, const std::vector<Type>& args, bool member);
  void not_a_comprehension_range(std::int64_t id, const Type& t);
  void not_an_optional_field_selection(std::int64_t id);
  void not_a_type(std::int64_t id, const Type& t);
  void not_a_message_type(std::int64_t id, const Type& t);
  void type_does_not_support_field_selection(std::int64_t id, const Type& t);
  void type_mismatch(std::int64_t id, const Type& expected, const Type& actual);
  void undefined_field(std::int64_t id, std::string_view field);
  void undeclared_reference(std::int64_t id, std::string_view name);
  void invalid_argument(std::int64_t id, std::string_view function);
  void unexpected_ast(std::int64_t id, std::string_view kind);

  bool empty() const { return issues_.empty(); }
  Issues take() { return std::move(issues_); }

 private:
  void report(std::int64_t id, std::string message);
  Issues issues_;
};

// cel-go's formatFunctionDeclType without a result: "(int, string)", or "string.(int)" for a member call.
std::string format_call_signature(const std::vector<Type>& args, bool member);

}  // namespace kapi::cel::checker
