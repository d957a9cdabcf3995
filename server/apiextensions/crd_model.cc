#include "server/apiextensions/crd_model.h"

#include "server/registry/json_fields.h"
#include "server/registry/object_meta.h"

#include <boost/json.hpp>

#include <cctype>
#include <charconv>

namespace kapi::apiextensions {
namespace {

namespace json = boost::json;
using namespace registry::fields;

CrdNames parse_names(const json::object* names) {
  CrdNames out;
  if (!names) return out;
  out.plural = string_at(names, "plural");
  out.singular = string_at(names, "singular");
  out.kind = string_at(names, "kind");
  out.list_kind = string_at(names, "listKind");
  out.short_names = strings_at(*names, "shortNames");
  out.categories = strings_at(*names, "categories");
  if (out.singular.empty())
    for (char c : out.kind) out.singular += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (out.list_kind.empty() && !out.kind.empty()) out.list_kind = out.kind + "List";
  return out;
}

CrdVersion parse_version(const json::object& version) {
  CrdVersion out;
  out.name = string_at(&version, "name");
  out.served = bool_at(version, "served");
  out.storage = bool_at(version, "storage");
  out.deprecated = bool_at(version, "deprecated");
  if (auto it = version.find("deprecationWarning"); it != version.end() && it->value().is_string())
    out.deprecation_warning = std::string(it->value().as_string());
  if (const json::object* schema = object_at(version, "schema"))
    if (const json::object* open_api = object_at(*schema, "openAPIV3Schema")) {
      out.schema = std::make_shared<const schema::Schema>(schema::parse_schema(*open_api));
      out.raw_schema = *open_api;
    }
  if (const json::object* subresources = object_at(version, "subresources")) {
    out.status_subresource = object_at(*subresources, "status") != nullptr;
    if (const json::object* scale = object_at(*subresources, "scale"))
      out.scale = ScaleSubresource{std::string(string_at(scale, "specReplicasPath")),
                                   std::string(string_at(scale, "statusReplicasPath")),
                                   std::string(string_at(scale, "labelSelectorPath"))};
  }
  if (auto it = version.find("additionalPrinterColumns"); it != version.end() && it->value().is_array()) {
    for (const auto& item : it->value().as_array()) {
      if (!item.is_object()) continue;
      const json::object& column = item.as_object();
      PrinterColumn parsed{std::string(string_at(&column, "name")), std::string(string_at(&column, "type")),
                           std::string(string_at(&column, "format")), std::string(string_at(&column, "description")),
                           std::string(string_at(&column, "jsonPath"))};
      if (auto priority = column.find("priority"); priority != column.end() && priority->value().is_int64())
        parsed.priority = static_cast<int>(priority->value().as_int64());
      out.printer_columns.push_back(std::move(parsed));
    }
  }
  return out;
}

bool condition_true(const json::object& crd, std::string_view type) {
  const json::object* condition = find_condition(crd, type);
  return condition && registry::string_field(*condition, "status") == "True";
}

// "v1beta2" → {1, 1 (beta), 2}; GA is stage 2, beta 1, alpha 0. False for names that are not kube-like.
struct KubeVersion {
  int major = 0, stage = 2, minor = 0;
};
std::optional<KubeVersion> parse_kube_version(std::string_view text) {
  if (text.size() < 2 || text[0] != 'v' || !std::isdigit(static_cast<unsigned char>(text[1]))) return std::nullopt;
  KubeVersion out;
  const char* end = text.data() + text.size();
  auto [rest, error] = std::from_chars(text.data() + 1, end, out.major);
  if (error != std::errc() || out.major == 0) return std::nullopt;
  std::string_view tail(rest, static_cast<std::size_t>(end - rest));
  if (tail.empty()) return out;
  if (tail.starts_with("alpha")) out.stage = 0, tail.remove_prefix(5);
  else if (tail.starts_with("beta")) out.stage = 1, tail.remove_prefix(4);
  else return std::nullopt;
  if (tail.empty()) return std::nullopt;
  auto [minor_end, minor_error] = std::from_chars(tail.data(), tail.data() + tail.size(), out.minor);
  if (minor_error != std::errc() || minor_end != tail.data() + tail.size() || out.minor == 0) return std::nullopt;
  return out;
}

}  // namespace

const CrdVersion* Crd::version(std::string_view name) const {
  for (const auto& v : versions)
    if (v.name == name) return &v;
  return nullptr;
}

const CrdVersion* Crd::storage_version() const {
  for (const auto& v : versions)
    if (v.storage) return &v;
  return nullptr;
}

registry::ResourceDefinition Crd::resource_definition(const CrdVersion& version) const {
  registry::ResourceDefinition definition{.group = group, .version = version.name, .resource = accepted_names.plural,
                                          .kind = accepted_names.kind, .singular = accepted_names.singular,
                                          .namespaced = namespaced, .short_names = accepted_names.short_names,
                                          .categories = accepted_names.categories};
  // Every version of a CRD is stored under one key prefix: /registry/<group>/<plural>/.
  definition.storage_resource = group + "/" + accepted_names.plural;
  definition.unstructured = true;
  if (version.status_subresource) definition.subresources.push_back("status");
  if (version.scale) definition.subresources.push_back("scale");
  return definition;
}

std::string openapi_definition_name(std::string_view group, std::string_view version, std::string_view kind) {
  std::string reversed;
  while (!group.empty()) {
    auto dot = group.rfind('.');
    std::string_view label = dot == std::string_view::npos ? group : group.substr(dot + 1);
    if (!reversed.empty()) reversed += '.';
    reversed += label;
    group = dot == std::string_view::npos ? std::string_view() : group.substr(0, dot);
  }
  return reversed + "." + std::string(version) + "." + std::string(kind);
}

Crd parse_crd(const json::object& object) {
  Crd crd;
  crd.name = registry::meta_string(object, "name");
  crd.uid = registry::meta_string(object, "uid");
  if (const json::object* meta = object_at(object, "metadata"))
    crd.terminating = meta->contains("deletionTimestamp") && !meta->at("deletionTimestamp").is_null();
  const json::object* spec = object_at(object, "spec");
  if (spec) {
    crd.group = string_at(spec, "group");
    crd.namespaced = string_at(spec, "scope") != "Cluster";
    crd.names = parse_names(object_at(*spec, "names"));
    if (auto it = spec->find("versions"); it != spec->end() && it->value().is_array())
      for (const auto& version : it->value().as_array())
        if (version.is_object()) crd.versions.push_back(parse_version(version.as_object()));
  }
  if (const json::object* status = object_at(object, "status")) crd.accepted_names = parse_names(object_at(*status, "acceptedNames"));
  crd.established = condition_true(object, "Established");
  crd.names_accepted = condition_true(object, "NamesAccepted");
  return crd;
}

const json::object* find_condition(const json::object& crd, std::string_view type) {
  const json::object* status = object_at(crd, "status");
  if (!status) return nullptr;
  auto it = status->find("conditions");
  if (it == status->end() || !it->value().is_array()) return nullptr;
  for (const auto& condition : it->value().as_array())
    if (condition.is_object() && registry::string_field(condition.as_object(), "type") == type)
      return &condition.as_object();
  return nullptr;
}

bool kube_aware_version_before(std::string_view a, std::string_view b) {
  auto va = parse_kube_version(a);
  auto vb = parse_kube_version(b);
  if (va && vb) {
    if (va->stage != vb->stage) return va->stage > vb->stage;
    if (va->major != vb->major) return va->major > vb->major;
    return va->minor > vb->minor;
  }
  if (va || vb) return va.has_value();
  return a < b;
}

}  // namespace kapi::apiextensions
