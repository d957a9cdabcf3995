#pragma once
// Field-level validation errors, as k8s.io/apimachinery/pkg/util/validation/field reports them: a path such as
// `metadata.labels[app]`, a type, the offending value and a detail. Registries collect them in an ErrorList and
// turn a non-empty list into a 422 Invalid Status (apierrors::invalid).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kapi::validation {

// TypeInvalid reads as "Invalid value" but has its own cause reason, FieldValueTypeInvalid (a value of the wrong
// JSON type for its schema, as custom resource validation reports it).
enum class ErrorType { Required, Invalid, NotSupported, Forbidden, TooLong, TooMany, Duplicate, NotFound, Internal, TypeInvalid };

struct FieldError {
  ErrorType type = ErrorType::Invalid;
  std::string field;  // "metadata.name"
  // The value as Go's %#v would print it for the common cases: strings quoted, numbers bare. Empty for types
  // that do not show a value (Required, Forbidden, Internal).
  std::string value;
  std::string detail;

  // "Invalid value", "Required value", ... (field.ErrorType.String()).
  std::string_view type_text() const;
  // The cause's "reason": "FieldValueInvalid", "FieldValueRequired", ...
  std::string_view reason() const;
  // "Invalid value: \"x\": detail" — field.Error.ErrorBody().
  std::string body() const;
  // "metadata.name: Invalid value: ..." — field.Error.Error().
  std::string text() const;
};

using ErrorList = std::vector<FieldError>;

// A field path under construction: Path("metadata").child("labels").key("app") → "metadata.labels[app]".
class Path {
 public:
  explicit Path(std::string root) : path_(std::move(root)) {}
  Path child(std::string_view name) const { return Path(path_.empty() ? std::string(name) : path_ + "." + std::string(name)); }
  Path index(std::size_t i) const { return Path(path_ + "[" + std::to_string(i) + "]"); }
  Path key(std::string_view k) const { return Path(path_ + "[" + std::string(k) + "]"); }
  const std::string& str() const { return path_; }

 private:
  std::string path_;
};

// Go's %q of a string (base::go_quote), as field errors show string values.
std::string quoted(std::string_view value);

FieldError required(const Path& path, std::string detail = {});
FieldError invalid(const Path& path, std::string_view string_value, std::string detail);
FieldError invalid_value(const Path& path, std::string raw_value, std::string detail);  // value printed as is
FieldError not_supported(const Path& path, std::string_view string_value, const std::vector<std::string>& valid);
FieldError forbidden(const Path& path, std::string detail);
FieldError too_long(const Path& path, std::size_t max_length);
FieldError duplicate(const Path& path, std::string_view string_value);

}  // namespace kapi::validation
