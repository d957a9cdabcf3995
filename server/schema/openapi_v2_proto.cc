#include "server/schema/openapi_v2_proto.h"

#include "protos/gnostic/openapiv2.pb.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>
#include <boost/json.hpp>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>

namespace kapi::schema {
namespace {

namespace json = boost::json;
namespace pb = google::protobuf;
namespace oa = openapi::v2;

// ---- YAML, as gnostic's compiler.Marshal writes an Any (yaml.v3, block style, four-space indentation) ----

bool is_block(const json::value& value) {
  return (value.is_object() && !value.as_object().empty()) || (value.is_array() && !value.as_array().empty());
}

// A string yaml.v2 and yaml.v3 both read back as the same string when written without quotes: a word that is
// neither a YAML 1.1 boolean nor null. Anything else is double-quoted (JSON's escapes are YAML's).
bool plain(std::string_view text) {
  if (text.empty() || !std::isalpha(static_cast<unsigned char>(text[0]))) return false;
  for (char c : text)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.' && c != '/') return false;
  std::string lower;
  for (char c : text) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  static constexpr std::array<std::string_view, 9> kResolved{"y",   "n",    "yes",   "no",  "on",
                                                             "off", "true", "false", "null"};
  return std::find(kResolved.begin(), kResolved.end(), lower) == kResolved.end();
}

void write_string(std::string_view text, std::string& out) {
  if (plain(text)) out += text;
  else out += json::serialize(json::string(text));
}

void write_scalar(const json::value& value, std::string& out) {
  switch (value.kind()) {
    case json::kind::null: out += "null"; break;
    case json::kind::bool_: out += value.get_bool() ? "true" : "false"; break;
    case json::kind::int64: out += std::to_string(value.get_int64()); break;
    case json::kind::uint64: out += std::to_string(value.get_uint64()); break;
    case json::kind::double_: {
      const double number = value.get_double();
      if (std::isnan(number)) {
        out += ".nan";
        break;
      }
      if (std::isinf(number)) {
        out += number > 0 ? ".inf" : "-.inf";
        break;
      }
      std::array<char, 32> buffer;
      auto end = std::to_chars(buffer.data(), buffer.data() + buffer.size(), number).ptr;
      out.append(buffer.data(), end);
      break;
    }
    case json::kind::string: write_string(value.get_string(), out); break;
    case json::kind::object: out += "{}"; break;
    case json::kind::array: out += "[]"; break;
  }
}

// A non-empty mapping or sequence; its first line continues the current one (after "key:\n<indent>" or "- ").
void write_block(const json::value& value, std::size_t indent, std::string& out) {
  bool first = true;
  auto start_line = [&] {
    if (!first) out.append(indent, ' ');
    first = false;
  };
  if (value.is_object()) {
    for (const auto& [key, member] : value.get_object()) {
      start_line();
      write_string(key, out);
      out += ':';
      if (is_block(member)) {
        out += '\n';
        out.append(indent + 4, ' ');
        write_block(member, indent + 4, out);
      } else {
        out += ' ';
        write_scalar(member, out);
        out += '\n';
      }
    }
    return;
  }
  for (const auto& item : value.get_array()) {
    start_line();
    out += "- ";
    if (is_block(item)) {
      write_block(item, indent + 2, out);
    } else {
      write_scalar(item, out);
      out += '\n';
    }
  }
}

// ---- gnostic's NewDocument, by reflection over the messages ----

// "operationId" → "operation_id", "$ref" → "_ref": gnostic's field names are the JSON names in snake case.
std::string field_name(std::string_view key) {
  if (key == "$ref") return "_ref";
  std::string name;
  for (char c : key) {
    if (std::isupper(static_cast<unsigned char>(c))) {
      name += '_';
      name += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else {
      name += c;
    }
  }
  return name;
}

std::string_view string_member(const json::value& value, std::string_view key) {
  const json::object* object = value.if_object();
  const json::value* member = object ? object->if_contains(key) : nullptr;
  return member && member->is_string() ? std::string_view(member->get_string()) : std::string_view();
}

void convert(const json::value& value, pb::Message& message);

void add_vendor_extension(std::string_view name, const json::value& value, pb::Message& message) {
  const pb::FieldDescriptor* field = message.GetDescriptor()->FindFieldByName("vendor_extension");
  if (!field) return;
  auto& extension = static_cast<oa::NamedAny&>(*message.GetReflection()->AddMessage(&message, field));
  extension.set_name(std::string(name));
  extension.mutable_value()->set_yaml(gnostic_yaml(value));
}

// Each member of `object` to the field its key names; members no field names are left out.
void fill(const json::object& object, pb::Message& message) {
  const pb::Descriptor* descriptor = message.GetDescriptor();
  const pb::Reflection* reflection = message.GetReflection();
  for (const auto& [key, value] : object) {
    if (key.starts_with("x-")) {
      add_vendor_extension(key, value, message);
      continue;
    }
    const pb::FieldDescriptor* field = descriptor->FindFieldByName(field_name(key));
    if (!field) continue;
    if (field->is_repeated()) {
      if (!value.is_array()) continue;
      for (const auto& item : value.get_array()) {
        if (field->cpp_type() == pb::FieldDescriptor::CPPTYPE_STRING) {
          if (item.is_string()) reflection->AddString(&message, field, std::string(item.get_string()));
        } else if (field->cpp_type() == pb::FieldDescriptor::CPPTYPE_MESSAGE) {
          convert(item, *reflection->AddMessage(&message, field));
        }
      }
      continue;
    }
    switch (field->cpp_type()) {
      case pb::FieldDescriptor::CPPTYPE_STRING:
        if (value.is_string()) reflection->SetString(&message, field, std::string(value.get_string()));
        break;
      case pb::FieldDescriptor::CPPTYPE_BOOL:
        if (value.is_bool()) reflection->SetBool(&message, field, value.get_bool());
        break;
      case pb::FieldDescriptor::CPPTYPE_DOUBLE:
        if (value.is_number()) reflection->SetDouble(&message, field, value.to_number<double>());
        break;
      case pb::FieldDescriptor::CPPTYPE_INT64:
        if (value.is_int64() || value.is_uint64())
          reflection->SetInt64(&message, field, value.to_number<std::int64_t>());
        break;
      case pb::FieldDescriptor::CPPTYPE_MESSAGE: convert(value, *reflection->MutableMessage(&message, field)); break;
      default: break;
    }
  }
}

// A map whose every member is an entry (Definitions, Properties, Headers, SecurityRequirement, ...): its one field,
// `additional_properties`, repeats Named* pairs of a name and a value, in the order of the keys.
bool fill_named_map(const json::value& value, pb::Message& message) {
  const pb::Descriptor* descriptor = message.GetDescriptor();
  if (descriptor->field_count() != 1 || descriptor->field(0)->name() != "additional_properties") return false;
  if (!value.is_object()) return true;
  const pb::FieldDescriptor* entries = descriptor->field(0);
  for (const auto& [key, member] : value.get_object()) {
    pb::Message& entry = *message.GetReflection()->AddMessage(&message, entries);
    const pb::Reflection* reflection = entry.GetReflection();
    reflection->SetString(&entry, entry.GetDescriptor()->FindFieldByName("name"), std::string(key));
    const pb::FieldDescriptor* field = entry.GetDescriptor()->FindFieldByName("value");
    if (field->cpp_type() == pb::FieldDescriptor::CPPTYPE_STRING) {
      if (member.is_string()) reflection->SetString(&entry, field, std::string(member.get_string()));
    } else {
      convert(member, *reflection->MutableMessage(&entry, field));
    }
  }
  return true;
}

void convert_non_body_parameter(const json::value& value, oa::NonBodyParameter& parameter) {
  const std::string_view in = string_member(value, "in");
  if (in == "header") convert(value, *parameter.mutable_header_parameter_sub_schema());
  else if (in == "formData") convert(value, *parameter.mutable_form_data_parameter_sub_schema());
  else if (in == "query") convert(value, *parameter.mutable_query_parameter_sub_schema());
  else if (in == "path") convert(value, *parameter.mutable_path_parameter_sub_schema());
}

void convert_security_definition(const json::value& value, oa::SecurityDefinitionsItem& item) {
  const std::string_view type = string_member(value, "type");
  const std::string_view flow = string_member(value, "flow");
  if (type == "basic") convert(value, *item.mutable_basic_authentication_security());
  else if (type == "apiKey") convert(value, *item.mutable_api_key_security());
  else if (type == "oauth2" && flow == "implicit") convert(value, *item.mutable_oauth2_implicit_security());
  else if (type == "oauth2" && flow == "password") convert(value, *item.mutable_oauth2_password_security());
  else if (type == "oauth2" && flow == "application") convert(value, *item.mutable_oauth2_application_security());
  else if (type == "oauth2" && flow == "accessCode") convert(value, *item.mutable_oauth2_access_code_security());
}

// `value` into `message`, the message gnostic makes of it where the value is found. The messages that are not
// plainly an object's members are the ones gnostic chooses among (oneofs) or reads from a non-object.
void convert(const json::value& value, pb::Message& message) {
  const std::string& full_name = message.GetDescriptor()->full_name();
  if (!full_name.starts_with("openapi.v2.")) return;
  const std::string_view type = std::string_view(full_name).substr(std::string_view("openapi.v2.").size());
  if (type == "Any") {
    static_cast<oa::Any&>(message).set_yaml(gnostic_yaml(value));
  } else if (type == "TypeItem" || type == "StringArray") {  // "type": "string" or ["string", "null"]
    const pb::FieldDescriptor* field = message.GetDescriptor()->FindFieldByName("value");
    if (value.is_string()) message.GetReflection()->AddString(&message, field, std::string(value.get_string()));
    if (value.is_array())
      for (const auto& item : value.get_array())
        if (item.is_string()) message.GetReflection()->AddString(&message, field, std::string(item.get_string()));
  } else if (type == "ItemsItem") {  // one schema, or a tuple of them
    auto& items = static_cast<oa::ItemsItem&>(message);
    if (value.is_object()) convert(value, *items.add_schema());
    if (value.is_array())
      for (const auto& item : value.get_array()) convert(item, *items.add_schema());
  } else if (type == "AdditionalPropertiesItem") {
    auto& item = static_cast<oa::AdditionalPropertiesItem&>(message);
    if (value.is_bool()) item.set_boolean(value.get_bool());
    else if (value.is_object()) convert(value, *item.mutable_schema());
  } else if (type == "SchemaItem") {
    auto& item = static_cast<oa::SchemaItem&>(message);
    if (string_member(value, "type") == "file") convert(value, *item.mutable_file_schema());
    else convert(value, *item.mutable_schema());
  } else if (type == "ParametersItem") {
    auto& item = static_cast<oa::ParametersItem&>(message);
    if (value.is_object() && value.get_object().contains("$ref")) convert(value, *item.mutable_json_reference());
    else convert(value, *item.mutable_parameter());
  } else if (type == "Parameter") {
    auto& parameter = static_cast<oa::Parameter&>(message);
    if (string_member(value, "in") == "body") convert(value, *parameter.mutable_body_parameter());
    else convert_non_body_parameter(value, *parameter.mutable_non_body_parameter());
  } else if (type == "ResponseValue") {
    auto& response = static_cast<oa::ResponseValue&>(message);
    if (value.is_object() && value.get_object().contains("$ref")) convert(value, *response.mutable_json_reference());
    else convert(value, *response.mutable_response());
  } else if (type == "SecurityDefinitionsItem") {
    convert_security_definition(value, static_cast<oa::SecurityDefinitionsItem&>(message));
  } else if (type == "Paths" || type == "Responses") {  // entries by pattern ("/..." or a status), and extensions
    if (!value.is_object()) return;
    const bool paths = type == "Paths";
    for (const auto& [key, member] : value.get_object()) {
      if (key.starts_with("x-")) {
        add_vendor_extension(key, member, message);
      } else if (paths) {
        if (!key.starts_with("/")) continue;
        oa::NamedPathItem& path = *static_cast<oa::Paths&>(message).add_path();
        path.set_name(std::string(key));
        convert(member, *path.mutable_value());
      } else {
        oa::NamedResponseValue& response = *static_cast<oa::Responses&>(message).add_response_code();
        response.set_name(std::string(key));
        convert(member, *response.mutable_value());
      }
    }
  } else if (!fill_named_map(value, message) && value.is_object()) {
    fill(value.get_object(), message);
  }
}

}  // namespace

std::string gnostic_yaml(const json::value& value) {
  std::string out;
  if (is_block(value)) {
    write_block(value, 0, out);
  } else {
    write_scalar(value, out);
    out += '\n';
  }
  return out;
}

std::string openapi_v2_protobuf(std::string_view text) {
  const json::value document = json::parse(text);
  oa::Document message;
  convert(document, message);
  return message.SerializeAsString();
}

}  // namespace kapi::schema
