#include "server/validation/field_error.h"

#include "base/go_quote.h"

namespace kapi::validation {

std::string_view FieldError::type_text() const {
  switch (type) {
    case ErrorType::Required: return "Required value";
    case ErrorType::Invalid: return "Invalid value";
    case ErrorType::NotSupported: return "Unsupported value";
    case ErrorType::Forbidden: return "Forbidden";
    case ErrorType::TooLong: return "Too long";
    case ErrorType::TooMany: return "Too many";
    case ErrorType::Duplicate: return "Duplicate value";
    case ErrorType::NotFound: return "Not found";
    case ErrorType::Internal: return "Internal error";
    case ErrorType::TypeInvalid: return "Invalid value";
  }
  return "Invalid value";
}

std::string_view FieldError::reason() const {
  switch (type) {
    case ErrorType::Required: return "FieldValueRequired";
    case ErrorType::Invalid: return "FieldValueInvalid";
    case ErrorType::NotSupported: return "FieldValueNotSupported";
    case ErrorType::Forbidden: return "FieldValueForbidden";
    case ErrorType::TooLong: return "FieldValueTooLong";
    case ErrorType::TooMany: return "FieldValueTooMany";
    case ErrorType::Duplicate: return "FieldValueDuplicate";
    case ErrorType::NotFound: return "FieldValueNotFound";
    case ErrorType::Internal: return "InternalError";
    case ErrorType::TypeInvalid: return "FieldValueTypeInvalid";
  }
  return "FieldValueInvalid";
}

std::string FieldError::body() const {
  std::string out(type_text());
  const bool shows_value = type != ErrorType::Required && type != ErrorType::Forbidden &&
                           type != ErrorType::Internal && type != ErrorType::TooLong && !value.empty();
  if (shows_value) out += ": " + value;
  if (!detail.empty()) out += ": " + detail;
  return out;
}

std::string FieldError::text() const { return field + ": " + body(); }

std::string quoted(std::string_view value) { return base::go_quote(value); }

FieldError required(const Path& path, std::string detail) {
  return {ErrorType::Required, path.str(), "", std::move(detail)};
}
FieldError invalid(const Path& path, std::string_view string_value, std::string detail) {
  return {ErrorType::Invalid, path.str(), validation::quoted(string_value), std::move(detail)};
}
FieldError invalid_value(const Path& path, std::string raw_value, std::string detail) {
  return {ErrorType::Invalid, path.str(), std::move(raw_value), std::move(detail)};
}
FieldError not_supported(const Path& path, std::string_view string_value, const std::vector<std::string>& valid) {
  std::string detail;
  if (!valid.empty()) {
    detail = "supported values: ";
    for (std::size_t i = 0; i < valid.size(); ++i) detail += (i ? ", " : "") + validation::quoted(valid[i]);
  }
  return {ErrorType::NotSupported, path.str(), validation::quoted(string_value), std::move(detail)};
}
FieldError forbidden(const Path& path, std::string detail) {
  return {ErrorType::Forbidden, path.str(), "", std::move(detail)};
}
FieldError too_long(const Path& path, std::size_t max_length) {
  return {ErrorType::TooLong, path.str(), "", "may not be more than " + std::to_string(max_length) + " bytes"};
}
FieldError duplicate(const Path& path, std::string_view string_value) {
  return {ErrorType::Duplicate, path.str(), validation::quoted(string_value), ""};
}

}  // namespace kapi::validation
