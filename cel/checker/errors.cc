// The checker's messages, as cel-go's checker/errors.go and checker/format.go (formatFunctionDeclType) word them.
#include "cel/checker/errors.h"

#include "cel/checker/unify.h"

namespace kapi::cel::checker {

namespace {

std::string quoted(std::string_view s) { return "'" + std::string(s) + "'"; }

}  // namespace

std::string format_call_signature(const std::vector<Type>& args, bool member) {
  std::string out;
  std::size_t first = 0;
  if (member && !args.empty()) {
    out += format_type(args.front());
    out += '.';
    first = 1;
  }
  out += '(';
  for (std::size_t i = first; i < args.size(); ++i) {
    if (i > first) out += ", ";
    out += format_type(args[i]);
  }
  out += ')';
  return out;
}

void TypeErrors::report(std::int64_t id, std::string message) {
  issues_.errors.push_back(Issue{.expr_id = id, .offset = -1, .message = std::move(message)});
}

void TypeErrors::field_type_mismatch(std::int64_t id, std::string_view field, const Type& field_type,
                                     const Type& value) {
  report(id, "expected type of field " + quoted(field) + " is " + quoted(format_type(field_type)) +
                 " but provided type is " + quoted(format_type(value)));
}

void TypeErrors::no_matching_overload(std::int64_t id, std::string_view function, const std::vector<Type>& args,
                                      bool member) {
  report(id, "found no matching overload for " + quoted(function) + " applied to " +
                 quoted(format_call_signature(args, member)));
}

void TypeErrors::not_a_comprehension_range(std::int64_t id, const Type& t) {
  report(id, "expression of type " + quoted(format_type(t)) +
                 " cannot be range of a comprehension (must be list, map, or dynamic)");
}

void TypeErrors::not_an_optional_field_selection(std::int64_t id) {
  report(id, "unsupported optional field selection");
}

// These two name the type as cel-go's DeclaredTypeName does: its bare name, without parameters.
void TypeErrors::not_a_type(std::int64_t id, const Type& t) { report(id, quoted(t.name()) + " is not a type"); }

void TypeErrors::not_a_message_type(std::int64_t id, const Type& t) {
  report(id, quoted(t.name()) + " is not a message type");
}

void TypeErrors::type_does_not_support_field_selection(std::int64_t id, const Type& t) {
  report(id, "type " + quoted(format_type(t)) + " does not support field selection");
}

void TypeErrors::type_mismatch(std::int64_t id, const Type& expected, const Type& actual) {
  report(id, "expected type " + quoted(format_type(expected)) + " but found " + quoted(format_type(actual)));
}

void TypeErrors::undefined_field(std::int64_t id, std::string_view field) {
  report(id, "undefined field " + quoted(field));
}

void TypeErrors::undeclared_reference(std::int64_t id, std::string_view name) {
  // kapi compiles without a container, as kube does.
  report(id, "undeclared reference to " + quoted(name) + " (in container '')");
}

void TypeErrors::invalid_argument(std::int64_t id, std::string_view function) {
  report(id, "invalid " + std::string(function) + " argument");
}

void TypeErrors::unexpected_ast(std::int64_t id, std::string_view kind) { report(id, "unexpected " + std::string(kind)); }

}  // namespace kapi::cel::checker
