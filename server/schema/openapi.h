#pragma once
// The OpenAPI documents of the served resources, derived from the type schemas (the role of kube-openapi's
// builder and builder3): one OpenAPI v3 document per group version, listed by the v3 root with a content hash,
// and one Swagger 2.0 document for all of them. kubectl reads the v3 documents for `explain`, for whether the
// server validates fields (a PATCH operation carrying x-kubernetes-group-version-kind and a fieldValidation
// parameter) and for strategic merge patch metadata in `apply`.
#include "server/registry/resource.h"
#include "server/schema/catalog.h"

#include <map>
#include <string>
#include <vector>

namespace kapi::schema {

struct OpenApiDocument {
  std::string body;  // JSON
  std::string hash;  // upper-case hex SHA-512 of body, as kube-openapi's handler3 computes it
};

class OpenApiDocuments {
 public:
  // `resources`: every served resource; `server_version`: the gitVersion info.version reports.
  OpenApiDocuments(const Catalog& catalog, const std::vector<registry::ResourceDefinition>& resources,
                   std::string server_version);

  // {"paths":{"api/v1":{"serverRelativeURL":"/openapi/v3/api/v1?hash=..."},...}}
  const OpenApiDocument& v3_root() const { return v3_root_; }
  // The document of "api/v1" or "apis/<group>/<version>"; nullptr for others.
  const OpenApiDocument* v3(std::string_view group_version_path) const;
  // The Swagger 2.0 document of every served resource.
  const OpenApiDocument& v2() const { return v2_; }

 private:
  std::map<std::string, OpenApiDocument, std::less<>> v3_;
  OpenApiDocument v3_root_;
  OpenApiDocument v2_;
};

// "api/v1" or "apis/apps/v1".
std::string group_version_path(std::string_view group, std::string_view version);

}  // namespace kapi::schema
