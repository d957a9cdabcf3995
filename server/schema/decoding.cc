#include "server/schema/decoding.h"

#include "base/ascii.h"
#include "base/base64.h"
#include "base/go_json_errors.h"
#include "base/go_time.h"
#include "base/quantity.h"
#include "server/apierrors/errors.h"
#include "server/schema/transcoder.h"

#include <boost/json.hpp>

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <variant>

namespace kapi::schema {
namespace {

namespace json = boost::json;
namespace pb = google::protobuf;

// Thrown inside the walk; conform() wraps it in kube's "cannot be handled as" message.
struct TypeError {
  std::string message;
};

bool fits_int32(const json::value& value) {
  return value.is_int64() && value.get_int64() >= INT32_MIN && value.get_int64() <= INT32_MAX;
}

// A JSON value's text as a json.Unmarshaler receives it, for those that parse it themselves (Quantity).
std::string unmarshaler_text(const json::value& value) {
  if (value.is_string()) return std::string(value.get_string());
  if (value.is_number()) return base::go_number_literal(value);
  return json::serialize(value);
}

// The Go type kube's error names: "string", "int32", "[]v1.Container", "map[string]string", "v1.PodSpec".
std::string go_type(const pb::FieldDescriptor* field, bool element = false) {
  if (field->is_map() && !element) return "map[string]" + go_type(field->message_type()->map_value());
  if (field->is_repeated() && !element) return "[]" + go_type(field, true);
  switch (field->type()) {
    case pb::FieldDescriptor::TYPE_STRING: return "string";
    case pb::FieldDescriptor::TYPE_BYTES: return "[]uint8";
    case pb::FieldDescriptor::TYPE_BOOL: return "bool";
    case pb::FieldDescriptor::TYPE_INT32: return "int32";
    case pb::FieldDescriptor::TYPE_INT64: return "int64";
    case pb::FieldDescriptor::TYPE_DOUBLE: return "float64";
    case pb::FieldDescriptor::TYPE_MESSAGE: {
      const std::string& package = field->message_type()->file()->package();
      return package.substr(package.rfind('.') + 1) + "." + field->message_type()->name();
    }
    default: return "int64";
  }
}

class Conformer {
 public:
  // `defaults`: whether the +default markers fill unset fields.
  Conformer(const Catalog& catalog, IntegerOverflow overflow, bool defaults = true)
      : catalog_(catalog), overflow_(overflow), defaults_(defaults) {}

  void message(const pb::Descriptor* type, json::object& object, const std::string& path) {
    const bool type_meta = Catalog::has_type_meta(type);
    std::size_t dropped = 0;
    for (auto& entry : object) {
      const std::string key(entry.key());
      if (const pb::FieldDescriptor* field = catalog_.json_field(type, key)) {
        this->field(field->containing_type(), field, entry.value(), join(path, key));
      } else if (!(type_meta && (key == "apiVersion" || key == "kind"))) {
        unknown_.push_back(join(path, key));
        ++dropped;
      }
    }
    // Rebuilt rather than erased in place: object::erase moves the last member into the gap, and the client's
    // field order is worth keeping.
    if (dropped > 0) {
      json::object kept(object.storage());
      kept.reserve(object.size() - dropped);
      for (auto& entry : object) {
        std::string_view key = entry.key();
        if (catalog_.json_field(type, key) || (type_meta && (key == "apiVersion" || key == "kind")))
          kept.emplace(key, std::move(entry.value()));
      }
      object = std::move(kept);
    }
    for (const pb::FieldDescriptor* field : catalog_.json_fields(type)) {
      const Markers& markers = catalog_.markers(field);
      if (!defaults_ || !markers.default_json || object.contains(field->name())) continue;
      json::error_code ec;
      json::value value = json::parse(*markers.default_json, ec);
      if (ec) continue;
      // A defaulted object ({} for PodSpec.securityContext, Service.spec) gets its own fields' defaults too.
      json::value& placed = object[field->name()] = std::move(value);
      if (placed.is_object() && field->message_type() && !field->is_map() && !field->is_repeated() &&
          Catalog::special(field->message_type()) == Special::kNone)
        message(field->message_type(), placed.as_object(), join(path, field->name()));
    }
  }

  std::vector<std::string> take_unknown() { return std::move(unknown_); }

 private:
  static std::string join(const std::string& path, std::string_view key) {
    return path.empty() ? std::string(key) : path + "." + std::string(key);
  }

  [[noreturn]] static void type_error(const pb::Descriptor* owner, const std::string& type, const json::value& value,
                                      const std::string& path) {
    type_error(owner, type, std::string(base::go_json_kind(value)), path);
  }
  // `what` as encoding/json's UnmarshalTypeError names the value: "string", "number", "number 99999999999".
  [[noreturn]] static void type_error(const pb::Descriptor* owner, const std::string& type, const std::string& what,
                                      const std::string& path) {
    std::string go_path;  // Go names the field by its JSON path without list indices
    for (std::size_t i = 0; i < path.size(); ++i) {
      if (path[i] == '[') {
        i = path.find(']', i);
        if (i == std::string::npos) break;
        continue;
      }
      go_path += path[i];
    }
    throw TypeError{base::GoUnmarshalTypeError{.value = what, .type = type, .owner = owner->name(), .field = go_path}
                        .message()};
  }

  // An integer beyond its field's Go type. encoding/json refuses it, naming the number; kube's unstructured
  // converter, which reads an applied object, converts it as Go converts integers: keeping its low bits.
  void integer(const pb::Descriptor* owner, const pb::FieldDescriptor* field, json::value& value,
               const std::string& path, const std::string& expected) {
    const std::uint64_t bits = value.is_int64() ? static_cast<std::uint64_t>(value.get_int64()) : value.get_uint64();
    bool fits = false;
    json::value converted;
    switch (field->cpp_type()) {
      case pb::FieldDescriptor::CPPTYPE_INT64:
        fits = value.is_int64();
        converted = static_cast<std::int64_t>(bits);
        break;
      case pb::FieldDescriptor::CPPTYPE_UINT64:
        fits = value.is_uint64() || value.get_int64() >= 0;
        converted = bits;
        break;
      case pb::FieldDescriptor::CPPTYPE_UINT32:
        fits = value.is_int64() && value.get_int64() >= 0 && value.get_int64() <= UINT32_MAX;
        converted = static_cast<std::int64_t>(static_cast<std::uint32_t>(bits));
        break;
      default:  // int32 and enums
        fits = fits_int32(value);
        converted = static_cast<std::int64_t>(static_cast<std::int32_t>(bits));
        break;
    }
    if (fits) return;
    if (overflow_ == IntegerOverflow::kConvert) {
      value = std::move(converted);
      return;
    }
    type_error(owner, expected, "number " + json::serialize(value), path);
  }

  void field(const pb::Descriptor* owner, const pb::FieldDescriptor* field, json::value& value,
             const std::string& path) {
    if (value.is_null()) return;  // null is the zero value in Go's decoding
    if (field->is_map()) {
      if (!value.is_object()) type_error(owner, go_type(field), value, path);
      const pb::FieldDescriptor* values = field->message_type()->map_value();
      for (auto& entry : value.as_object()) {
        if (entry.value().is_null()) continue;
        element(owner, values, entry.value(), path + "[" + std::string(entry.key()) + "]", go_type(values));
      }
      return;
    }
    if (field->is_repeated()) {
      if (!value.is_array()) type_error(owner, go_type(field), value, path);
      auto& array = value.as_array();
      for (std::size_t i = 0; i < array.size(); ++i)
        if (!array[i].is_null()) element(owner, field, array[i], path + "[" + std::to_string(i) + "]", go_type(field, true));
      return;
    }
    element(owner, field, value, path, go_type(field));
  }

  // One value of `field` (the field's own, a list item or a map value); `expected` is its Go type.
  void element(const pb::Descriptor* owner, const pb::FieldDescriptor* field, json::value& value,
               const std::string& path, const std::string& expected) {
    auto fail = [&]() { type_error(owner, expected, value, path); };
    switch (field->type()) {
      case pb::FieldDescriptor::TYPE_STRING:
        if (!value.is_string()) fail();
        return;
      case pb::FieldDescriptor::TYPE_BYTES:
        if (!value.is_string()) fail();
        // encoding/json reads a []byte as standard base64, and its error is what kube answers with; text that is
        // not base64 has no bytes to store.
        if (auto bytes = base::base64_decode_with_error(value.get_string()); bytes.corrupt_at)
          throw TypeError{bytes.error()};
        return;
      case pb::FieldDescriptor::TYPE_BOOL:
        if (!value.is_bool()) fail();
        return;
      case pb::FieldDescriptor::TYPE_DOUBLE:
      case pb::FieldDescriptor::TYPE_FLOAT:
        if (!value.is_number()) fail();
        return;
      case pb::FieldDescriptor::TYPE_MESSAGE: break;
      default:
        // An integer field names a fraction by its digits ("number 1.5"), anything else by its kind.
        if (value.is_double()) type_error(owner, expected, "number " + base::go_number_literal(value), path);
        if (!value.is_int64() && !value.is_uint64()) fail();
        integer(owner, field, value, path, expected);
        return;
    }
    const pb::Descriptor* type = field->message_type();
    switch (Catalog::special(type)) {
      case Special::kTime:
      case Special::kMicroTime: {
        if (!value.is_string()) fail();
        // Time and MicroTime read their string with time.Parse, whose error kube answers with.
        const auto layout = Catalog::special(type) == Special::kTime ? base::TimeLayout::kRfc3339
                                                                     : base::TimeLayout::kRfc3339Micro;
        if (auto parsed = base::parse_go_time(value.get_string(), layout); !parsed.time)
          throw TypeError{std::move(parsed.error)};
        return;
      }
      case Special::kDuration:
        if (!value.is_string()) fail();
        return;
      case Special::kQuantity: {
        // Quantity.UnmarshalJSON parses whatever it is given, quoted or not, and its parse error is kube's answer:
        // "abc", true or [1] never reach the store. What does is what kube's Quantity writes back: its canonical
        // spelling ("0.5" is "500m", " 2Gi " is "2Gi", 1024 is "1024").
        const std::string text = unmarshaler_text(value);
        auto parsed = parse_go_quantity(base::trim_ascii_space(text));  // as it trims its text
        if (auto* error = std::get_if<QuantityParseError>(&parsed)) throw TypeError{std::move(error->message)};
        value = std::get<Quantity>(parsed).to_string();
        return;
      }
      case Special::kIntOrString:
        if (value.is_string()) return;
        // IntOrString.UnmarshalJSON decodes anything but a string into an int32 with encoding/json, whose error
        // (not the request decoder's own type) keeps no field path (from an applied object too).
        if (!fits_int32(value)) {
          const std::string what = value.is_number() ? "number " + base::go_number_literal(value)
                                                     : std::string(base::go_json_kind(value));
          throw TypeError{base::GoUnmarshalTypeError{.value = what, .type = "int32"}.message()};
        }
        return;
      case Special::kRawExtension:
      case Special::kFieldsV1: return;  // free-form JSON
      case Special::kStringList:
        if (!value.is_array() || std::any_of(value.as_array().begin(), value.as_array().end(),
                                             [](const json::value& item) { return !item.is_string(); }))
          fail();
        return;
      case Special::kNone: break;
    }
    if (!value.is_object()) fail();
    message(type, value.as_object(), path);
  }

  const Catalog& catalog_;
  IntegerOverflow overflow_;
  bool defaults_;
  std::vector<std::string> unknown_;
};

}  // namespace

FieldValidation parse_field_validation(std::string_view value) {
  if (value.empty() || value == "Warn") return FieldValidation::kWarn;
  if (value == "Strict") return FieldValidation::kStrict;
  if (value == "Ignore") return FieldValidation::kIgnore;
  throw apierrors::ApiError(apierrors::bad_request("fieldValidation: Unsupported value: \"" + std::string(value) +
                                                   "\": supported values: \"Ignore\", \"Strict\", \"Warn\""));
}

std::vector<std::string> conform(const Catalog& catalog, const pb::Descriptor* kind, json::object& object,
                                 IntegerOverflow overflow) {
  Conformer conformer(catalog, overflow, false);
  try {
    conformer.message(kind, object, "");
    // kube's defaulters run on the decoded struct, whose absent structs are there as their zero form, so defaults
    // fill those too: they come after the Go form. An applied object is partial and stays as applied.
    if (overflow == IntegerOverflow::kError) to_go_form(catalog, kind, object);
    Conformer(catalog, overflow).message(kind, object, "");
  } catch (const TypeError& error) {
    const std::string& package = kind->file()->package();
    const std::string version = package.substr(package.rfind('.') + 1);
    throw apierrors::ApiError(apierrors::bad_request(kind->name() + " in version \"" + version +
                                                     "\" cannot be handled as a " + kind->name() + ": " +
                                                     error.message));
  }
  return conformer.take_unknown();
}

void to_go_form(const Catalog& catalog, const pb::Descriptor* kind, json::object& object) {
  const Transcoder transcoder(catalog);
  json::value typed;
  try {
    typed = transcoder.to_json(*kind, transcoder.to_protobuf(*kind, object));
  } catch (const TranscodeError&) {
    return;
  }
  if (!typed.is_object()) return;
  // TypeMeta is the envelope's in protobuf; Go writes it first, kind then apiVersion.
  json::object go_form(object.storage());
  go_form.reserve(typed.as_object().size() + 2);
  for (std::string_view key : {"kind", "apiVersion"})
    if (json::value* value = object.if_contains(key)) go_form.emplace(key, std::move(*value));
  for (auto& member : typed.as_object()) go_form.emplace(member.key(), std::move(member.value()));
  object = std::move(go_form);
}

std::optional<std::string> conform_embedded(const Catalog& catalog, const pb::Descriptor* type, json::object& object,
                                            const std::string& path, std::vector<std::string>& unknown) {
  Conformer conformer(catalog, IntegerOverflow::kError);
  try {
    conformer.message(type, object, path);
  } catch (const TypeError& error) {
    return error.message;
  }
  for (auto& field : conformer.take_unknown()) unknown.push_back(std::move(field));
  return std::nullopt;
}

std::vector<std::string> report_unknown_fields(FieldValidation validation, const std::vector<std::string>& unknown) {
  if (unknown.empty() || validation == FieldValidation::kIgnore) return {};
  std::vector<std::string> messages;
  for (const auto& path : unknown) messages.push_back("unknown field \"" + path + "\"");
  if (validation == FieldValidation::kWarn) return messages;
  std::string joined;
  for (const auto& message : messages) joined += (joined.empty() ? "" : ", ") + message;
  throw apierrors::ApiError(apierrors::bad_request("strict decoding error: " + joined));
}

std::vector<std::string> report_strict_errors(FieldValidation validation, const pb::Descriptor* kind,
                                              const std::vector<std::string>& errors) {
  const std::string& package = kind->file()->package();
  return report_strict_errors(validation, kind->name(), package.substr(package.rfind('.') + 1), errors);
}

std::vector<std::string> report_strict_errors(FieldValidation validation, std::string_view kind,
                                              std::string_view version, const std::vector<std::string>& errors) {
  if (errors.empty() || validation == FieldValidation::kIgnore) return {};
  if (validation == FieldValidation::kWarn) {
    constexpr std::string_view kYamlPrefix = "yaml: unmarshal errors:\n";
    std::vector<std::string> warnings;
    for (const auto& error : errors) {
      if (!error.starts_with(kYamlPrefix)) {
        warnings.push_back(error);
        continue;
      }
      std::string_view rest = std::string_view(error).substr(kYamlPrefix.size());
      while (!rest.empty()) {
        std::string_view line = rest.substr(0, rest.find('\n'));
        rest.remove_prefix(std::min(rest.size(), line.size() + 1));
        while (!line.empty() && line.front() == ' ') line.remove_prefix(1);
        while (!line.empty() && line.back() == ' ') line.remove_suffix(1);
        if (!line.empty()) warnings.emplace_back(line);
      }
    }
    return warnings;
  }
  std::string joined;
  for (const auto& error : errors) joined += (joined.empty() ? "" : ", ") + error;
  const std::string name(kind);
  throw apierrors::ApiError(apierrors::bad_request(name + " in version \"" + std::string(version) +
                                                   "\" cannot be handled as a " + name +
                                                   ": strict decoding error: " + joined));
}

}  // namespace kapi::schema
