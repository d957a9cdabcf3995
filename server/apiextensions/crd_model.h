#pragma once
// A stored CustomResourceDefinition as the serving side needs it (apiextensions' internal types, read from the
// v1 JSON the CRD store keeps): its names, scope and versions, each version's schema, subresources and printer
// columns, and the conditions its controllers keep.
#include "server/apiextensions/schema/structural.h"
#include "server/registry/resource.h"

#include <boost/json/object.hpp>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kapi::apiextensions {

inline constexpr std::string_view kGroup = "apiextensions.k8s.io";
// The finalizer that deletes a CRD's custom resources before the CRD goes (customresourcecleanup).
inline constexpr std::string_view kCleanupFinalizer = "customresourcecleanup.apiextensions.k8s.io";

struct CrdNames {
  std::string plural, singular, kind, list_kind;
  std::vector<std::string> short_names, categories;
};

struct PrinterColumn {
  std::string name, type, format, description, json_path;
  int priority = 0;
};

struct ScaleSubresource {
  std::string spec_replicas_path, status_replicas_path, label_selector_path;  // ".spec.replicas", ...
};

struct CrdVersion {
  std::string name;
  bool served = false;
  bool storage = false;
  bool deprecated = false;
  std::optional<std::string> deprecation_warning;
  std::shared_ptr<const schema::Schema> schema;  // null without openAPIV3Schema
  boost::json::object raw_schema;                // the openAPIV3Schema as written, for OpenAPI documents
  bool status_subresource = false;
  std::optional<ScaleSubresource> scale;
  std::vector<PrinterColumn> printer_columns;
};

struct Crd {
  std::string name;  // <plural>.<group>
  std::string uid;
  std::string group;
  bool namespaced = true;
  CrdNames names;           // spec.names
  CrdNames accepted_names;  // status.acceptedNames
  std::vector<CrdVersion> versions;
  bool terminating = false;  // metadata.deletionTimestamp set
  bool established = false;  // the Established condition is True
  bool names_accepted = false;

  const CrdVersion* version(std::string_view name) const;
  const CrdVersion* storage_version() const;
  // What the registry and discovery know of the resource at one served version (with the accepted names).
  registry::ResourceDefinition resource_definition(const CrdVersion& version) const;
};

// kube's OpenAPI definition name of a custom resource kind: the group reversed, version, kind
// ("com.example.v1.Widget" for example.com/v1 Widget).
std::string openapi_definition_name(std::string_view group, std::string_view version, std::string_view kind);

// Reads a stored CRD (already validated when it was written; malformed parts are left empty).
Crd parse_crd(const boost::json::object& object);

// The CRD's status condition of `type` ("Established", "NamesAccepted", ...), if any.
const boost::json::object* find_condition(const boost::json::object& crd, std::string_view type);

// kube's version priority order (version.CompareKubeAwareVersionStrings): v2 > v1 > v1beta2 > v1beta1 > v1alpha1 >
// anything else (alphabetically). Returns true when `a` comes before `b`.
bool kube_aware_version_before(std::string_view a, std::string_view b);

}  // namespace kapi::apiextensions
