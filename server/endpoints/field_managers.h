#pragma once
// The FieldManagers of one served resource version, made once when it is installed (kube's installer:
// reqScope.FieldManager per resource, version and subresource, with the kind's types, the storage's reset fields
// (rest.ResetFieldsStrategy) and a converter between the versions the kind is served at; apiextensions' crdHandler
// does the same for each CRD version: server/apiextensions/custom_resource_field_managers.h). The scale subresource's works on autoscaling/v1 Scale objects: its
// managedFields are mapped to and from the parent's by ScaleHandler (scale_managed_fields.h).
#include "server/fieldmanager/field_manager.h"
#include "server/registry/resource.h"
#include "server/registry/strategy.h"
#include "server/registry/version_conversion.h"
#include "server/schema/catalog.h"
#include "server/structured_merge/fieldpath.h"
#include "server/structured_merge/schema.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kapi::endpoints {

struct FieldManagers {
  // By subresource: "" for the main resource, "status", the other update subresources ("finalize", "approval",
  // "ephemeralcontainers"), and "scale", whose manager works on autoscaling/v1 Scale objects.
  std::map<std::string, std::shared_ptr<const fieldmanager::FieldManager>, std::less<>> by_subresource;
  // Where the parent keeps its replicas, by apiVersion (ScaleHandler's ResourcePathMappings); an empty path for a
  // version without a scale subresource.
  std::map<std::string, structured_merge::Path> replicas_paths;
  std::string api_version;  // the served version's "apps/v1"

  // The manager of a write through `subresource`; null when none tracks managedFields there.
  const fieldmanager::FieldManager* of(std::string_view subresource) const;
};

// Another version the same objects are served at, and how an object gets there: a built-in kind served from
// another version's storage (autoscaling/v1 HorizontalPodAutoscalers kept as v2) names the storage version here,
// and the storage version names the served one with the inverse direction.
struct PeerVersion {
  std::string group, version, kind;
  std::shared_ptr<const registry::VersionConversion> conversion;
  bool peer_is_storage = true;  // to_storage reaches the peer (else from_storage does)
};

// A built-in kind's managers from the catalog's types (one schema for every kind, fieldmanager::schema_from_catalog).
FieldManagers builtin_field_managers(const registry::ResourceDefinition& definition, const registry::Strategy& strategy,
                                     std::shared_ptr<const structured_merge::Schema> schema,
                                     const schema::Catalog& catalog, const std::vector<PeerVersion>& peers = {});

}  // namespace kapi::endpoints
