#include "server/apiextensions/schema/value_validation.h"

#include "base/go_regexp.h"
#include "base/go_strconv.h"
#include "server/apiextensions/schema/correlation.h"
#include "server/apiextensions/schema/formats.h"
#include "server/apiextensions/schema/go_values.h"

#include <boost/json.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace kapi::apiextensions::schema {
namespace {

namespace json = boost::json;
using validation::ErrorList;
using validation::ErrorType;
using validation::FieldError;
using validation::Path;

// kube-openapi's error codes, which decide the field error each problem becomes.
enum class Code {
  kInvalidType, kRequired, kTooLong, kTooShort, kPattern, kEnum, kMultipleOf, kMaximum, kMinimum, kUnique,
  kMaxItems, kMinItems, kTooFewProperties, kTooManyProperties, kUnallowedProperty, kComposite
};

// One kube-openapi error: errors.Validation (named by `name`, the validator's path) or a composite apiError.
struct Problem {
  Problem(Code c, std::string n, json::value v, std::string m, std::int64_t l = -1, json::array e = {})
      : code(c), name(std::move(n)), value(std::move(v)), message(std::move(m)), limit(l), enum_values(std::move(e)) {}

  Code code;
  std::string name;
  json::value value;  // null stands for Go's nil
  std::string message;
  std::int64_t limit;  // Validation.Valid for the too-long/too-many codes, -1 when unset
  json::array enum_values;
};

// validate.Result: errors (deduplicated by message, as AddErrors does) and the match count that decides which
// alternative's errors anyOf/oneOf report.
struct Result {
  std::vector<Problem> errors;
  int match_count = 0;

  void add(Problem problem) {
    for (const auto& existing : errors)
      if (existing.message == problem.message) return;
    errors.push_back(std::move(problem));
  }
  void merge(const Result& other) {
    for (const auto& problem : other.errors) add(problem);
    match_count += other.match_count;
  }
  bool valid() const { return errors.empty(); }
};

Result failure(Problem problem) {
  Result result;
  result.errors.push_back(std::move(problem));
  return result;
}

constexpr std::string_view kIn = "body";

Problem invalid_type(const std::string& path, const std::string& type_name, const std::string& value) {
  return {Code::kInvalidType, path, json::string(value),
          path + " in " + std::string(kIn) + " must be of type " + type_name + ": " + validation::quoted(value)};
}

Problem composite(std::string message) { return {Code::kComposite, "", nullptr, std::move(message)}; }

bool is_int(const json::value& v) {
  return v.is_int64() ||
         (v.is_uint64() && v.get_uint64() <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()));
}
std::int64_t as_int(const json::value& v) { return v.is_int64() ? v.get_int64() : static_cast<std::int64_t>(v.get_uint64()); }
double as_double(const json::value& v) {
  return v.is_double() ? v.get_double() : v.is_int64() ? static_cast<double>(v.get_int64()) : static_cast<double>(v.get_uint64());
}
// Go decodes integers beyond int64 as float64.
std::string data_type_of(const json::value& v) { return v.is_uint64() && !is_int(v) ? "number" : openapi_type_of(v); }

std::size_t rune_count(std::string_view text) {
  return static_cast<std::size_t>(
      std::count_if(text.begin(), text.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

class Validator {
 public:
  // SchemaValidator.Validate at `path`. `junctor_path` is the path the validators of allOf/anyOf/oneOf/not were
  // built with: kube builds one validator for all items of an array (at index 0) and only re-points its own
  // checks, so junctor errors of later items still name item 0.
  // With `correlation`, the node's old value: what the subtree finds wrong is let through when it is unchanged.
  Result validate(const Schema& s, const json::value& data, const std::string& path, const std::string& junctor_path,
                  Correlation* correlation = nullptr) {
    Result result = validate_node(s, data, path, junctor_path, correlation);
    if (correlation && !result.errors.empty() && correlation->cached_deep_equal()) return Result{};
    return result;
  }

 private:
  Result validate_node(const Schema& s, const json::value& data, const std::string& path,
                       const std::string& junctor_path, Correlation* correlation) {
    Result result;
    const std::vector<std::string> types = types_of(s);
    const std::string format = effective_format(s.type, s.format, s.x_int_or_string);
    if (data.is_null()) {
      result.merge(check_type(types, format, s.nullable, data, path));
      result.merge(check_enum(s, data, path));
      return result;
    }
    auto run = [&](Result r) {
      result.merge(r);
      result.match_count++;
    };
    if (!types.empty() || !format.empty()) run(check_type(types, format, s.nullable, data, path));
    run(check_junctors(s, data, path, junctor_path));
    if (data.is_string()) run(check_string(s, data.get_string(), path));
    if (data.is_string() && is_registered_string_format(format)) run(check_format(format, data.get_string(), path));
    if (data.is_number()) run(check_number(s, data, path));
    if (data.is_array()) run(check_array(s, data.get_array(), path, correlation));
    run(check_enum(s, data, path));
    if (data.is_object()) run(check_object(s, data.get_object(), path, correlation));
    result.match_count++;
    return result;
  }

  static std::vector<std::string> types_of(const Schema& s) {
    if (s.x_int_or_string) return {"integer", "string"};
    if (!s.type.empty()) return {s.type};
    return {};
  }

  static Result check_type(const std::vector<std::string>& types, const std::string& format, bool nullable,
                           const json::value& data, const std::string& path) {
    auto contains = [&](std::string_view t) { return std::find(types.begin(), types.end(), t) != types.end(); };
    std::string joined;
    for (const auto& t : types) joined += (joined.empty() ? "" : ",") + t;
    if (data.is_null()) {
      if (!types.empty() && !contains("null") && !nullable) return failure(invalid_type(path, joined, "null"));
      Result ok;
      ok.match_count = 1;
      return ok;
    }
    const std::string data_type = data_type_of(data);
    const std::string data_format = data_type == "integer" ? "int64" : data_type == "number" ? "double" : "";
    bool float_int = data_type == "number" && is_float_a_json_integer(as_double(data)) && contains("integer");
    bool int_float = data_type == "integer" && contains("number");
    bool string_or_slice = data.is_string() || data.is_array();
    if (!string_or_slice && !format.empty() && !(contains(data_type) || data_format == format || float_int || int_float))
      return failure(invalid_type(path, format, data_format));
    Result ok;
    ok.match_count = 1;
    if (!(contains("number") || contains("integer")) && !format.empty() && string_or_slice) return ok;
    if (!(contains(data_type) || float_int || int_float)) return failure(invalid_type(path, joined, data_type));
    return ok;
  }

  Result check_junctors(const Schema& s, const json::value& data, const std::string& path, const std::string& junctor_path) {
    Result main;
    if (!s.any_of.empty()) {
      std::optional<Result> best_failure, first_success;
      bool succeeded = false;
      for (const auto& alternative : s.any_of) {
        Result r = validate(alternative, data, junctor_path, junctor_path);
        if (r.valid()) {
          succeeded = true;
          best_failure.reset();
          if (!first_success) first_success = r;
          break;
        }
        if (!best_failure || r.match_count > best_failure->match_count) best_failure = r;
      }
      if (!succeeded) main.add(composite(validation::quoted(path) + " must validate at least one schema (anyOf)"));
      if (best_failure) main.merge(*best_failure);
      else if (first_success) main.merge(*first_success);
    }
    if (!s.one_of.empty()) {
      std::optional<Result> best_failure, first_success;
      int validated = 0;
      for (const auto& alternative : s.one_of) {
        Result r = validate(alternative, data, junctor_path, junctor_path);
        if (r.valid()) {
          ++validated;
          best_failure.reset();
          if (!first_success) first_success = r;
          continue;
        }
        if (validated == 0 && (!best_failure || r.match_count > best_failure->match_count)) best_failure = r;
      }
      if (validated != 1) {
        std::string found = validated == 0 ? "Found none valid" : "Found " + std::to_string(validated) + " valid alternatives";
        main.add(composite(validation::quoted(path) + " must validate one and only one schema (oneOf). " + found));
        if (best_failure) main.merge(*best_failure);
      } else if (first_success) {
        main.merge(*first_success);
      }
    }
    if (!s.all_of.empty()) {
      std::size_t validated = 0;
      for (const auto& part : s.all_of) {
        Result r = validate(part, data, junctor_path, junctor_path);
        if (r.valid()) ++validated;
        main.merge(r);
      }
      if (validated != s.all_of.size())
        main.add(composite(validation::quoted(path) + " must validate all the schemas (allOf)" +
                           (validated == 0 ? ". None validated" : "")));
    }
    if (s.not_schema && validate(*s.not_schema, data, junctor_path, junctor_path).valid())
      main.add(composite(validation::quoted(path) + " must not validate the schema (not)"));
    main.match_count++;
    return main;
  }

  static Result check_string(const Schema& s, const json::string& data, const std::string& path) {
    std::string_view text(data);
    const std::string name = path + " in " + std::string(kIn);
    if (s.max_length && static_cast<std::int64_t>(rune_count(text)) > *s.max_length)
      return failure({Code::kTooLong, path, data, name + " should be at most " + std::to_string(*s.max_length) + " chars long",
                      *s.max_length, {}});
    if (s.min_length && static_cast<std::int64_t>(rune_count(text)) < *s.min_length)
      return failure({Code::kTooShort, path, data, name + " should be at least " + std::to_string(*s.min_length) + " chars long"});
    if (s.pattern) {
      // Go's regexp, as go-openapi's Pattern runs it: linear in the text, however long. Compiled with the schema.
      std::string shown = *s.pattern;
      const std::shared_ptr<const RE2> pattern =
          s.compiled_pattern ? s.compiled_pattern : std::make_shared<const RE2>(*s.pattern, base::go_regexp_options());
      bool matched = false;
      if (!pattern->ok())
        shown += ", but pattern is invalid: " + base::go_regexp_error(*pattern);
      else
        matched = RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), *pattern);
      if (!matched) return failure({Code::kPattern, path, data, name + " should match '" + shown + "'"});
    }
    return {};
  }

  static Result check_format(const std::string& format, const json::string& data, const std::string& path) {
    if (matches_string_format(format, data)) return {};
    return failure({Code::kInvalidType, path, data,
                    path + " in " + std::string(kIn) + " must be of type " + format + ": " + validation::quoted(data)});
  }

  // numberValidator with MaximumNativeType and friends: integers compare as int64 against the truncated bound.
  static Result check_number(const Schema& s, const json::value& data, const std::string& path) {
    Result multiple, minimum, maximum, result;
    const std::string name = path + " in " + std::string(kIn);
    const bool integer = is_int(data);
    if (s.multiple_of) {
      double factor = *s.multiple_of;
      if (factor < 0) {
        multiple.add({Code::kMultipleOf, path, factor, "factor MultipleOf declared for " + path + " must be positive: " + base::go_format_float(factor)});
      } else if (integer && static_cast<std::int64_t>(factor) != 0) {
        auto f = static_cast<std::int64_t>(factor);
        if (as_int(data) % f != 0)
          multiple.add({Code::kMultipleOf, path, data, name + " should be a multiple of " + std::to_string(f)});
      } else if (factor > 0) {
        double value = as_double(data);
        double quotient = factor < 1 ? 1 / factor * value : value / factor;
        if (!is_float_a_json_integer(quotient))
          multiple.add({Code::kMultipleOf, path, data, name + " should be a multiple of " + base::go_format_float(factor)});
      }
    }
    auto bound_text = [&](double bound) {
      return integer ? std::to_string(static_cast<std::int64_t>(bound)) : base::go_format_float(bound);
    };
    auto exceeds = [&](double bound, bool exclusive, bool is_max) {
      if (integer) {
        auto v = as_int(data);
        auto b = static_cast<std::int64_t>(bound);
        return is_max ? (exclusive ? v >= b : v > b) : (exclusive ? v <= b : v < b);
      }
      double v = as_double(data);
      return is_max ? (exclusive ? v >= bound : v > bound) : (exclusive ? v <= bound : v < bound);
    };
    if (s.minimum && exceeds(*s.minimum, s.exclusive_minimum, false))
      minimum.add({Code::kMinimum, path, data,
                   name + (s.exclusive_minimum ? " should be greater than " : " should be greater than or equal to ") +
                       bound_text(*s.minimum)});
    if (s.maximum && exceeds(*s.maximum, s.exclusive_maximum, true))
      maximum.add({Code::kMaximum, path, data,
                   name + (s.exclusive_maximum ? " should be less than " : " should be less than or equal to ") +
                       bound_text(*s.maximum)});
    result.merge(multiple);
    result.merge(minimum);
    result.merge(maximum);
    result.match_count++;
    return result;
  }

  Result check_array(const Schema& s, const json::array& data, const std::string& path, Correlation* correlation) {
    Result result;
    const std::string name = path + " in " + std::string(kIn);
    if (s.items)
      for (std::size_t i = 0; i < data.size(); ++i)
        result.merge(validate(*s.items, data[i], path + "[" + std::to_string(i) + "]", path + "[0]",
                              correlation ? correlation->index(i) : nullptr));
    auto size = static_cast<std::int64_t>(data.size());
    if (s.min_items && size < *s.min_items)
      result.add({Code::kMinItems, path, size, name + " should have at least " + std::to_string(*s.min_items) + " items"});
    if (s.max_items && size > *s.max_items)
      result.add({Code::kMaxItems, path, size, name + " should have at most " + std::to_string(*s.max_items) + " items",
                  *s.max_items, {}});
    if (s.unique_items)
      for (std::size_t i = 0; i < data.size(); ++i)
        for (std::size_t j = 0; j < i; ++j)
          if (go_deep_equal(data[i], data[j])) {
            result.add({Code::kUnique, path, nullptr, name + " shouldn't contain duplicates"});
            i = j = data.size();  // one report is enough, as kube stops at the first duplicate
            break;
          }
    result.match_count++;
    return result;
  }

  static Result check_enum(const Schema& s, const json::value& data, const std::string& path) {
    if (!s.enum_values || s.enum_values->empty()) return {};
    for (const auto& member : *s.enum_values)
      if (go_enum_matches(data, member)) return {};
    std::string listed = "[";
    for (const auto& member : *s.enum_values) listed += (listed.size() > 1 ? " " : "") + go_value_text(member);
    return failure({Code::kEnum, path, data, path + " in " + std::string(kIn) + " should be one of " + listed + "]", -1,
                    *s.enum_values});
  }

  // fmt's %v of an enum member, for EnumFail's message (which kube replaces by NotSupported's own text).
  static std::string go_value_text(const json::value& v) { return v.is_string() ? std::string(v.get_string()) : json::serialize(v); }

  Result check_object(const Schema& s, const json::object& data, const std::string& path, Correlation* correlation) {
    // The root's apiVersion and kind are checked as they are, unchanged or not.
    auto child_correlation = [&](std::string_view key) -> Correlation* {
      if (!correlation || (path.empty() && (key == "apiVersion" || key == "kind"))) return nullptr;
      return correlation->key(std::string(key));
    };
    auto count = static_cast<std::int64_t>(data.size());
    const std::string name = path + " in " + std::string(kIn);
    if (s.min_properties && count < *s.min_properties)
      return failure({Code::kTooFewProperties, path, count,
                      name + " should have at least " + std::to_string(*s.min_properties) + " properties"});
    if (s.max_properties && count > *s.max_properties)
      return failure({Code::kTooManyProperties, path, count,
                      name + " should have at most " + std::to_string(*s.max_properties) + " properties", *s.max_properties, {}});
    Result result;
    if (s.additional_properties && !s.additional_properties->allows) {
      for (const auto& member : data)
        if (!s.property(member.key()))
          result.add({Code::kUnallowedProperty, path, json::string(member.key()),
                      path + "." + std::string(member.key()) + " in " + std::string(kIn) + " is a forbidden property"});
    } else if (const Schema* additional = s.additional_properties_schema()) {
      for (const auto& member : data)
        if (!s.property(member.key())) {
          std::string child = path + "." + std::string(member.key());
          result.merge(validate(*additional, member.value(), child, child, child_correlation(member.key())));
        }
    }
    for (const auto& property : s.properties) {
      const json::value* value = data.if_contains(property.name);
      if (!value) continue;
      std::string child = path.empty() ? property.name : path + "." + property.name;
      result.merge(validate(property.schema, *value, child, child, child_correlation(property.name)));
    }
    for (const auto& key : s.required)
      if (!data.contains(key))
        result.add({Code::kRequired, path + "." + key, nullptr, path + "." + key + " in " + std::string(kIn) + " is required"});
    return result;
  }
};

// kubeOpenAPIResultToFieldErrors.
FieldError to_field_error(const Problem& problem, const std::optional<Path>& base) {
  std::string name = problem.name;
  if (!name.empty() && name.front() == '.') name.erase(0, 1);
  std::string field;
  if (problem.code == Code::kComposite || problem.name.empty() || problem.name == ".")
    field = base ? base->str() : "<nil>";
  else
    field = base ? base->child(name).str() : name;
  const json::value shown = problem.value.is_null() ? json::value(json::string()) : problem.value;
  auto limit_text = [&](std::string_view noun) {
    std::string plural = problem.limit == 1 ? std::string(noun) : std::string(noun) + "s";
    return std::to_string(problem.limit) + " " + plural;
  };
  switch (problem.code) {
    case Code::kRequired: return {ErrorType::Required, field, "", ""};
    case Code::kEnum: {
      std::string detail;
      for (const auto& member : problem.enum_values)
        detail += (detail.empty() ? "supported values: " : ", ") +
                  validation::quoted(member.is_string() ? std::string(member.get_string()) : json::serialize(member));
      return {ErrorType::NotSupported, field, field_error_value(problem.value), detail};
    }
    case Code::kTooLong:
      return {ErrorType::TooLong, field, "", problem.limit >= 0 ? "may not be more than " + limit_text("byte") : "value is too long"};
    case Code::kMaxItems:
    case Code::kTooManyProperties:
      return {ErrorType::TooMany, field, field_error_value(problem.value),
              problem.limit >= 0 ? "must have at most " + limit_text("item") : "has too many items"};
    case Code::kInvalidType: return {ErrorType::TypeInvalid, field, field_error_value(shown), problem.message};
    case Code::kComposite: return {ErrorType::Invalid, field, validation::quoted(""), problem.message};
    default: return {ErrorType::Invalid, field, field_error_value(shown), problem.message};
  }
}

ErrorList validate(const Schema& schema, const json::value& value, const std::optional<Path>& base,
                   const json::value* old = nullptr) {
  Validator validator;
  std::optional<Correlation> correlation;
  if (old) correlation.emplace(&value, old, &schema);
  Result result = validator.validate(schema, value, "", "", correlation ? &*correlation : nullptr);
  ErrorList errors;
  for (const auto& problem : result.errors) errors.push_back(to_field_error(problem, base));
  return errors;
}

}  // namespace

ErrorList validate_value(const Schema& schema, const json::value& value) { return validate(schema, value, std::nullopt); }

ErrorList validate_value_update(const Schema& schema, const json::value& value, const json::value& old) {
  return validate(schema, value, std::nullopt, &old);
}

ErrorList validate_value(const Schema& schema, const json::value& value, const Path& base) {
  return validate(schema, value, base);
}

}  // namespace kapi::apiextensions::schema
