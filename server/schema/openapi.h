#pragma once
// The OpenAPI documents of the served resources, derived from the type schemas (the role of kube-openapi's
// builder and builder3): one OpenAPI v3 document per group version, listed by the v3 root with a content hash,
// and one Swagger 2.0 document for all of them. kubectl reads the v3 documents for `explain`, for whether the
// server validates fields (a PATCH operation carrying x-kubernetes-group-version-kind and a fieldValidation
// parameter) and for strategic merge patch metadata in `apply`.
#include "server/registry/resource.h"
#include "server/schema/catalog.h"

#include <boost/json/object.hpp>

#include <map>
#include <mutex>
#include <utility>
#include <string>
#include <vector>

namespace kapi::schema {

struct OpenApiDocument {
  std::string body;  // JSON
  std::string hash;  // upper-case hex SHA-512 of body, as kube-openapi's handler3 computes it
};

// The documents are made on first use, as kube-openapi's lazy handlers make them: they are megabytes of JSON
// that most clients never ask for, and making them at start would double the time to ready. Thread-safe.
class OpenApiDocuments {
 public:
  // `resources`: every served resource; `server_version`: the gitVersion info.version reports.
  OpenApiDocuments(const Catalog& catalog, std::vector<registry::ResourceDefinition> resources,
                   std::string server_version);

  // {"paths":{"api/v1":{"serverRelativeURL":"/openapi/v3/api/v1?hash=..."},...}}
  const OpenApiDocument& v3_root() const { return v3_documents().root; }
  // The document of "api/v1" or "apis/<group>/<version>"; nullptr for others.
  const OpenApiDocument* v3(std::string_view group_version_path) const;
  // The Swagger 2.0 document of every served resource.
  const OpenApiDocument& v2() const;
  // The v3 root's "paths" member, for a root that lists other documents too.
  const boost::json::object& v3_root_paths() const { return v3_documents().root_paths; }
  const Catalog& catalog() const { return catalog_; }
  const std::string& server_version() const { return server_version_; }

 private:
  struct V3Documents {
    boost::json::object root_paths;
    std::map<std::string, OpenApiDocument, std::less<>> by_path;
    OpenApiDocument root;
  };
  // The root lists every document's hash, so the v3 documents are made together.
  const V3Documents& v3_documents() const;

  const Catalog& catalog_;
  std::string server_version_;
  std::vector<registry::ResourceDefinition> resources_;
  mutable std::once_flag v3_made_;
  mutable V3Documents v3_;
  mutable std::once_flag v2_made_;
  mutable OpenApiDocument v2_;
};

// A resource described by a JSON schema rather than a catalog message (a custom resource, the CRD kind): its
// OpenAPI v3 object schema (apiVersion, kind and metadata are added) and its definition name
// ("com.example.v1.Widget"; the list's is that + "List").
struct SchemaResource {
  registry::ResourceDefinition definition;
  std::string definition_name;
  boost::json::object schema;
  // Further definitions `schema` references by name ("$ref": "#/components/schemas/<name>"), as v3 writes them.
  std::vector<std::pair<std::string, boost::json::object>> definitions = {};
};

// The OpenAPI v3 document of one group version of such resources, as kube's CRD builder writes it.
OpenApiDocument v3_document(const Catalog& catalog, const std::vector<SchemaResource>& resources,
                            std::string server_version);

// The Swagger 2.0 document of `base`'s resources and these (their schemas converted to 2.0 as kube converts a
// CRD's: nullable, oneOf, anyOf and not dropped).
// Also merges `documents`, Swagger 2.0 documents served elsewhere (an extension API server's): their paths and
// definitions are added where the names are not taken, as kube-aggregator's merge keeps the first.
OpenApiDocument v2_document(const OpenApiDocuments& base, const std::vector<SchemaResource>& resources,
                            const std::vector<boost::json::object>& documents = {});

// A document's body and hash.
OpenApiDocument openapi_document(const boost::json::value& document);

// "api/v1" or "apis/apps/v1".
std::string group_version_path(std::string_view group, std::string_view version);

}  // namespace kapi::schema
