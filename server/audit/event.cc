#include "server/audit/event.h"

#include "base/go_quote.h"
#include "base/go_time.h"
#include "server/audit/go_json.h"

#include <asio/ip/address.hpp>

#include <algorithm>

namespace kapi::audit {
namespace {

// Appends `"name":` and returns `out` for the value, with the comma the previous field needs.
class ObjectWriter {
 public:
  explicit ObjectWriter(std::string& out) : out_(out) { out_.push_back('{'); }
  std::string& field(std::string_view name) {
    if (!first_) out_.push_back(',');
    first_ = false;
    append_go_json_string(out_, name);
    out_.push_back(':');
    return out_;
  }
  void string(std::string_view name, std::string_view value) { append_go_json_string(field(name), value); }
  void string_if_set(std::string_view name, std::string_view value) {
    if (!value.empty()) string(name, value);
  }
  void strings_if_set(std::string_view name, const std::vector<std::string>& values) {
    if (values.empty()) return;
    std::string& out = field(name);
    out.push_back('[');
    for (std::size_t i = 0; i < values.size(); ++i) {
      if (i) out.push_back(',');
      append_go_json_string(out, values[i]);
    }
    out.push_back(']');
  }
  void raw(std::string_view name, std::string_view json) { field(name).append(json); }
  void close() { out_.push_back('}'); }

 private:
  std::string& out_;
  bool first_ = true;
};

// authentication/v1 UserInfo: every field omitempty.
void append_user(std::string& out, const request::UserInfo& user) {
  ObjectWriter object(out);
  object.string_if_set("username", user.name);
  object.string_if_set("uid", user.uid);
  object.strings_if_set("groups", user.groups);
  if (!user.extra.empty()) {
    std::string& extra = object.field("extra");
    ObjectWriter values(extra);
    for (const auto& [key, list] : user.extra) {
      std::string& value = values.field(key);
      if (list.empty()) {
        value += "null";  // a nil ExtraValue
        continue;
      }
      value.push_back('[');
      for (std::size_t i = 0; i < list.size(); ++i) {
        if (i) value.push_back(',');
        append_go_json_string(value, list[i]);
      }
      value.push_back(']');
    }
    values.close();
  }
  object.close();
}

void append_object_ref(std::string& out, const ObjectReference& ref) {
  ObjectWriter object(out);
  object.string_if_set("resource", ref.resource);
  object.string_if_set("namespace", ref.namespace_);
  object.string_if_set("name", ref.name);
  object.string_if_set("uid", ref.uid);
  object.string_if_set("apiGroup", ref.api_group);
  object.string_if_set("apiVersion", ref.api_version);
  object.string_if_set("resourceVersion", ref.resource_version);
  object.string_if_set("subresource", ref.subresource);
  object.close();
}

// metav1.Status: ListMeta is a struct, so "metadata":{} is always written.
void append_status(std::string& out, const ResponseStatus& status) {
  ObjectWriter object(out);
  object.raw("metadata", "{}");
  object.string_if_set("status", status.status);
  object.string_if_set("message", status.message);
  object.string_if_set("reason", status.reason);
  if (!status.details.empty())
    if (auto details = compact_go_json(status.details, false)) object.raw("details", *details);
  if (status.code != 0) object.raw("code", std::to_string(status.code));
  object.close();
}

std::optional<std::string> normalized_ip(std::string_view text) {
  asio::error_code error;
  auto address = asio::ip::make_address(std::string(text), error);
  if (error) return std::nullopt;
  if (address.is_v6() && address.to_v6().is_v4_mapped())
    return asio::ip::make_address_v4(asio::ip::v4_mapped, address.to_v6()).to_string();
  return address.to_string();
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

}  // namespace

std::string format_micro_time(std::chrono::system_clock::time_point time) {
  return base::format_rfc3339_micro(base::unix_time(time));
}

namespace {

// time.RFC3339Nano in UTC: the fraction's trailing zeros dropped, no fraction at all for a whole second.
std::string format_rfc3339_nano(std::chrono::system_clock::time_point time) {
  const base::UnixTime unix = base::unix_time(time);
  std::string out = base::format_rfc3339(unix.seconds);
  if (unix.nanos == 0) return out;
  std::string fraction = std::to_string(1'000'000'000 + unix.nanos).substr(1);
  while (fraction.back() == '0') fraction.pop_back();
  out.insert(out.size() - 1, "." + fraction);
  return out;
}

// auditStringSlice: each quoted, joined by commas.
std::string quoted_list(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out.append(out.empty() ? "" : ",").append(base::go_quote(item));
  return out;
}

}  // namespace

std::string to_legacy_line(const Event& event) {
  std::string user = "<none>", groups = "<none>";
  if (!event.user.name.empty()) {
    user = event.user.name;
    if (!event.user.groups.empty()) groups = quoted_list(event.user.groups);
  }
  std::string as_user = "<self>", as_groups = "<lookup>";
  if (event.impersonated_user) {
    as_user = event.impersonated_user->name;
    if (!event.impersonated_user->groups.empty()) as_groups = quoted_list(event.impersonated_user->groups);
  }
  const std::string namespace_ =
      event.object_ref && !event.object_ref->namespace_.empty() ? event.object_ref->namespace_ : "<none>";
  const std::string response = event.response_status ? std::to_string(event.response_status->code) : "<deferred>";
  const std::string ip = event.source_ips.empty() ? "<unknown>" : event.source_ips.front();
  return format_rfc3339_nano(event.request_received_timestamp) + " AUDIT: id=" + base::go_quote(event.audit_id) +
         " stage=" + base::go_quote(to_string(event.stage)) + " ip=" + base::go_quote(ip) +
         " method=" + base::go_quote(event.verb) + " user=" + base::go_quote(user) + " groups=" + base::go_quote(groups) +
         " as=" + base::go_quote(as_user) + " asgroups=" + base::go_quote(as_groups) +
         " user-agent=" + base::go_quote(event.user_agent) + " namespace=" + base::go_quote(namespace_) +
         " uri=" + base::go_quote(event.request_uri) + " response=\"" + response + "\"";
}

std::string to_json(const Event& event) {
  std::string out;
  out.reserve(512 + event.request_object.value_or("").size() + event.response_object.value_or("").size());
  ObjectWriter object(out);
  object.string("kind", "Event");
  object.string("apiVersion", "audit.k8s.io/v1");
  object.string("level", to_string(event.level));
  object.string("auditID", event.audit_id);
  object.string("stage", to_string(event.stage));
  object.string("requestURI", event.request_uri);
  object.string("verb", event.verb);
  append_user(object.field("user"), event.user);
  if (event.impersonated_user) append_user(object.field("impersonatedUser"), *event.impersonated_user);
  object.strings_if_set("sourceIPs", event.source_ips);
  object.string_if_set("userAgent", event.user_agent);
  if (event.object_ref) append_object_ref(object.field("objectRef"), *event.object_ref);
  if (event.response_status) append_status(object.field("responseStatus"), *event.response_status);
  if (event.request_object)
    if (auto json = compact_go_json(*event.request_object, event.omit_managed_fields)) object.raw("requestObject", *json);
  if (event.response_object)
    if (auto json = compact_go_json(*event.response_object, event.omit_managed_fields)) object.raw("responseObject", *json);
  object.string("requestReceivedTimestamp", format_micro_time(event.request_received_timestamp));
  object.string("stageTimestamp", format_micro_time(event.stage_timestamp));
  if (!event.annotations.empty()) {
    std::string& annotations = object.field("annotations");
    ObjectWriter values(annotations);
    for (const auto& [key, value] : event.annotations) values.string(key, value);
    values.close();
  }
  object.close();
  return out;
}

std::vector<std::string> source_ips(const http::Headers& headers, std::string_view remote_address) {
  std::vector<std::string> ips;
  if (auto forwarded = headers.get("X-Forwarded-For"); forwarded && !forwarded->empty()) {
    std::string_view rest = *forwarded;
    while (true) {
      auto comma = rest.find(',');
      if (auto ip = normalized_ip(trim(rest.substr(0, comma)))) ips.push_back(std::move(*ip));
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
  }
  if (auto real_ip = headers.get("X-Real-Ip"); real_ip && !real_ip->empty())
    if (auto ip = normalized_ip(*real_ip); ip && std::find(ips.begin(), ips.end(), *ip) == ips.end())
      ips.push_back(std::move(*ip));
  // The connection's "ip:port" or "[ip]:port"; a bare IP too.
  std::string_view host = remote_address;
  if (host.starts_with('[')) {
    host = host.substr(1, host.find(']') - 1);
  } else if (auto colon = host.rfind(':'); colon != std::string_view::npos && host.find(':') == colon) {
    host = host.substr(0, colon);
  }
  auto remote = normalized_ip(host);
  if (!remote) remote = normalized_ip(remote_address);
  if (remote && (ips.empty() || ips.back() != *remote)) ips.push_back(std::move(*remote));
  return ips;
}

}  // namespace kapi::audit
