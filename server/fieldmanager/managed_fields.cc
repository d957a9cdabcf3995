// kube's managedfields/internal/managedfields.go and fields.go: metadata.managedFields to and from smd's
// ManagedFields.
#include "server/fieldmanager/managed_fields.h"

#include "base/go_json_string.h"
#include "base/go_quote.h"
#include "base/go_time.h"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string_view>
#include <vector>

namespace kapi::fieldmanager {
namespace {

namespace json = boost::json;
namespace sm = structured_merge;

constexpr std::string_view kApply = "Apply";
constexpr std::string_view kUpdate = "Update";
constexpr std::string_view kFieldsV1 = "FieldsV1";

// A string member of a ManagedFieldsEntry; "" when absent (Go's zero value, which omitempty leaves out).
std::string_view string_member(const json::object& entry, std::string_view name) {
  const json::value* value = entry.if_contains(name);
  return value != nullptr && value->is_string() ? std::string_view(value->get_string()) : std::string_view();
}

void append_member(std::string& out, std::string_view name, std::string_view value) {
  if (value.empty()) return;  // omitempty
  out += out.size() > 1 ? "," : "";
  base::append_go_json_string(out, name);
  out += ':';
  base::append_go_json_string(out, value);
}

// json.Marshal of the identifier's ManagedFieldsEntry: its fields in the struct's order, empty ones omitted.
std::string identifier_json(std::string_view manager, std::string_view operation, std::string_view api_version,
                            std::string_view subresource) {
  std::string out = "{";
  append_member(out, "manager", manager);
  append_member(out, "operation", operation);
  append_member(out, "apiVersion", api_version);
  append_member(out, "subresource", subresource);
  out += '}';
  return out;
}

// The time of an entry as metav1.Time keeps it: RFC 3339 in UTC, whole seconds.
std::optional<std::string> entry_time(const json::object& entry) {
  std::string_view text = string_member(entry, "time");
  if (text.empty()) return std::nullopt;
  if (std::optional<base::UnixTime> time = base::parse_rfc3339(text)) {
    // Already whole seconds in UTC, as kube writes it: kept as it is rather than formatted again.
    if (text.size() == 20 && text.back() == 'Z') return std::string(text);
    return base::format_rfc3339(time->seconds);
  }
  return std::string(text);  // not a time; decoding the object would have refused it before this
}

// fmt's %v of the metav1.ManagedFieldsEntry kube names in its decoding errors: {manager operation apiVersion time
// fieldsType fieldsV1 subresource}, the time as time.Time.String and fieldsV1 as FieldsV1.String (its raw text).
std::string go_entry_string(const json::object& entry) {
  std::string time = "<nil>";
  if (std::optional<std::string> rfc3339 = entry_time(entry)) {
    time = *rfc3339;
    if (time.size() == 20 && time[10] == 'T' && time[19] == 'Z') time = time.substr(0, 10) + " " + time.substr(11, 8) + " +0000 UTC";
  }
  std::string fields = "<nil>";
  if (const json::value* raw = entry.if_contains("fieldsV1"); raw != nullptr && !raw->is_null()) {
    fields = json::serialize(*raw);  // FieldsV1.String: the raw text, here as re-written compactly
  }
  std::string out = "{";
  for (std::string_view part : {string_member(entry, "manager"), string_member(entry, "operation"),
                                string_member(entry, "apiVersion")}) {
    out.append(part);
    out += ' ';
  }
  out += time + " ";
  out.append(string_member(entry, "fieldsType"));
  out += " " + fields + " ";
  out.append(string_member(entry, "subresource"));
  return out + "}";
}

// DecodeManagedFields; errors are its text (the caller adds "failed to decode managed fields: ").
sm::VersionedSet decode_entry(const json::object& entry, std::size_t index, std::string& identifier,
                              std::optional<std::string>& time) {
  const std::string_view operation = string_member(entry, "operation");
  if (operation != kApply && operation != kUpdate) throw std::invalid_argument("operation must be `Apply` or `Update`");
  const std::string_view api_version = string_member(entry, "apiVersion");
  if (api_version.empty()) throw std::invalid_argument("apiVersion must not be empty");
  const std::string_view fields_type = string_member(entry, "fieldsType");
  if (fields_type.empty()) {
    throw std::invalid_argument("missing fieldsType in managed fields entry " + std::to_string(index));
  }
  if (fields_type != kFieldsV1) {
    throw std::invalid_argument("invalid fieldsType " + base::go_quote(fields_type) + " in managed fields entry " +
                                std::to_string(index));
  }
  identifier = manager_identifier(entry);
  sm::VersionedSet versioned;
  try {
    if (const json::value* fields = entry.if_contains("fieldsV1")) versioned.set = sm::Set::from_fields_v1(*fields);
  } catch (const std::invalid_argument& error) {
    throw std::invalid_argument("error decoding versioned set from " + go_entry_string(entry) +
                                ": error decoding set: " + error.what());
  }
  versioned.api_version = std::string(api_version);
  versioned.applied = operation == kApply;
  time = entry_time(entry);
  return versioned;
}

struct EncodedEntry {
  std::string manager;
  std::string operation;
  std::string api_version;
  std::optional<std::string> time;
  std::int64_t seconds = 0;  // what sortEncodedManagedFields compares: Time.Unix(), 0 without a time
  std::string subresource;
  const sm::Set* set = nullptr;
};

// The members of an identifier as identifier_json writes them, read without a JSON parser when none needs
// unescaping (every manager with a plain name); false when the text is not of that form.
bool read_plain_identifier(std::string_view text, EncodedEntry& entry) {
  if (text.size() < 2 || text.front() != '{' || text.back() != '}') return false;
  text = text.substr(1, text.size() - 2);
  while (!text.empty()) {
    // "name":"value"
    if (text.front() != '"') return false;
    const std::size_t name_end = text.find('"', 1);
    if (name_end == std::string_view::npos || text.substr(name_end, 3) != "\":\"") return false;
    const std::string_view name = text.substr(1, name_end - 1);
    const std::size_t value_start = name_end + 3;
    const std::size_t value_end = text.find('"', value_start);
    if (value_end == std::string_view::npos) return false;
    const std::string_view value = text.substr(value_start, value_end - value_start);
    if (value.find('\\') != std::string_view::npos || name.find('\\') != std::string_view::npos) return false;
    if (name == "manager") {
      entry.manager = value;
    } else if (name == "operation") {
      entry.operation = value;
    } else if (name == "subresource") {
      entry.subresource = value;
    } else if (name != "apiVersion") {
      return false;
    }
    text.remove_prefix(value_end + 1);
    if (!text.empty()) {
      if (text.front() != ',') return false;
      text.remove_prefix(1);
    }
  }
  return true;
}

// encodeManagerVersionedSet: the identifier gives manager, operation and subresource; the versioned set gives
// apiVersion and, when applied, the operation.
EncodedEntry encode_entry(const std::string& identifier, const sm::VersionedSet& versioned) {
  EncodedEntry entry;
  if (!read_plain_identifier(identifier, entry)) {
    entry = EncodedEntry();
    json::error_code ec;
    json::value parsed = json::parse(identifier, ec);
    if (ec || !parsed.is_object()) {
      throw std::invalid_argument("failed to convert back managed fields to API: error encoding versioned set for " +
                                  identifier + ": error unmarshalling manager identifier " + identifier + ": " +
                                  (ec ? ec.message() : std::string("not an object")));
    }
    const json::object& fields = parsed.get_object();
    entry.manager = std::string(string_member(fields, "manager"));
    entry.operation = std::string(string_member(fields, "operation"));
    entry.subresource = std::string(string_member(fields, "subresource"));
  }
  entry.api_version = versioned.api_version;
  if (versioned.applied) entry.operation = std::string(kApply);
  entry.set = &versioned.set;
  return entry;
}

// sortEncodedManagedFields: operation, then time (seconds), then manager, apiVersion and subresource.
bool entry_less(const EncodedEntry& p, const EncodedEntry& q) {
  if (p.operation != q.operation) return p.operation < q.operation;
  if (p.seconds != q.seconds) return p.seconds < q.seconds;
  if (p.manager != q.manager) return p.manager < q.manager;
  if (p.api_version != q.api_version) return p.api_version < q.api_version;
  return p.subresource < q.subresource;
}

// The entry as metav1.ManagedFieldsEntry marshals: manager, operation, apiVersion, time, fieldsType, fieldsV1,
// subresource, the empty ones left out.
json::object entry_json(const EncodedEntry& entry) {
  json::object out;
  out.reserve(7);
  if (!entry.manager.empty()) out.emplace("manager", entry.manager);
  if (!entry.operation.empty()) out.emplace("operation", entry.operation);
  if (!entry.api_version.empty()) out.emplace("apiVersion", entry.api_version);
  if (entry.time) {
    // metav1.Time writes the zero time as null (a pointer to it is still not omitted).
    if (entry.seconds == base::kZeroTimeSeconds) {
      out.emplace("time", nullptr);
    } else {
      out.emplace("time", *entry.time);
    }
  }
  out.emplace("fieldsType", kFieldsV1);
  out.emplace("fieldsV1", entry.set->to_fields_v1_object());
  if (!entry.subresource.empty()) out.emplace("subresource", entry.subresource);
  return out;
}

}  // namespace

std::string manager_identifier(const json::object& entry) {
  return manager_identifier(string_member(entry, "manager"), string_member(entry, "operation"),
                            string_member(entry, "apiVersion"), string_member(entry, "subresource"));
}

std::string manager_identifier(std::string_view manager, std::string_view operation, std::string_view api_version,
                               std::string_view subresource) {
  // Appliers are one manager whatever version they applied at, so their apiVersion stays out.
  return identifier_json(manager, operation, operation == kApply ? std::string_view() : api_version, subresource);
}

const json::array* managed_fields_of(const json::object& object) {
  const json::value* metadata = object.if_contains("metadata");
  if (metadata == nullptr || !metadata->is_object()) return nullptr;
  const json::value* managed_fields = metadata->get_object().if_contains("managedFields");
  return managed_fields != nullptr && managed_fields->is_array() ? &managed_fields->get_array() : nullptr;
}

Managed decode_managed_fields(const json::object& object) {
  Managed managed;
  const json::array* entries = managed_fields_of(object);
  if (entries == nullptr) return managed;
  static const json::object kNoFields;
  try {
    for (std::size_t i = 0; i < entries->size(); ++i) {
      const json::value& entry = (*entries)[i];
      std::string identifier;
      std::optional<std::string> time;
      sm::VersionedSet versioned = decode_entry(entry.is_object() ? entry.get_object() : kNoFields, i, identifier, time);
      managed.fields.insert_or_assign(identifier, std::move(versioned));  // a repeated manager: the last one counts
      if (time) {
        managed.times.insert_or_assign(identifier, std::move(*time));
      } else {
        managed.times.erase(identifier);
      }
    }
  } catch (const std::invalid_argument& error) {
    throw std::invalid_argument(std::string("failed to decode managed fields: ") + error.what());
  }
  return managed;
}

void set_managed_fields(json::object& object, const Managed& managed) {
  if (managed.fields.empty()) {
    // encodeManagedFields gives nil: the member is omitted.
    if (json::value* metadata = object.if_contains("metadata"); metadata != nullptr && metadata->is_object()) {
      metadata->get_object().erase("managedFields");
    }
    return;
  }
  json::value& metadata = object["metadata"];
  if (!metadata.is_object()) metadata = json::object();
  std::vector<EncodedEntry> entries;
  entries.reserve(managed.fields.size());
  for (const auto& [identifier, versioned] : managed.fields) {
    EncodedEntry& entry = entries.emplace_back(encode_entry(identifier, versioned));
    if (auto time = managed.times.find(identifier); time != managed.times.end()) {
      entry.time = time->second;
      if (std::optional<base::UnixTime> parsed = base::parse_rfc3339(time->second)) entry.seconds = parsed->seconds;
    }
  }
  std::sort(entries.begin(), entries.end(), entry_less);
  json::array encoded;
  encoded.reserve(entries.size());
  for (const EncodedEntry& entry : entries) encoded.emplace_back(entry_json(entry));
  metadata.get_object()["managedFields"] = std::move(encoded);
}

}  // namespace kapi::fieldmanager
