#pragma once
// Serves the OpenAPI documents as kube-openapi's handlers do: /openapi/v3 lists each group version's document
// with its hash; /openapi/v3/<group version>?hash=<current> is immutable (cacheable for a year), a stale hash is
// redirected to the current one; every document has an ETag and answers If-None-Match with 304. /openapi/v2
// is served as JSON or, to a client that asks for it (kubectl asks for nothing else), as gnostic's protobuf
// (openapi_v2_proto.h), both under the JSON's ETag with `Vary: Accept`; an Accept naming neither is 406.
#include "request/exchange.h"
#include "server/schema/openapi.h"

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace kapi::schema {

// The OpenAPI of group versions that come and go at run time (custom resources), as it is at one moment: their v3
// documents by path ("apis/example.com/v1") and their resources, which the Swagger 2.0 document adds.
struct DynamicOpenApi {
  std::map<std::string, OpenApiDocument, std::less<>> v3;
  std::vector<SchemaResource> resources;
  // Whole Swagger 2.0 documents served elsewhere (extension API servers'), merged into /openapi/v2.
  std::vector<boost::json::object> v2;
};
using DynamicOpenApiSource = std::function<std::shared_ptr<const DynamicOpenApi>()>;

class OpenApiHandler {
 public:
  explicit OpenApiHandler(const OpenApiDocuments& documents) : documents_(documents) {}
  // Documents listed by the v3 root after the built-in ones.
  void add_dynamic_source(DynamicOpenApiSource source) { dynamic_sources_.push_back(std::move(source)); }

  asio::awaitable<void> serve_v3(request::Exchange& exchange) const;
  asio::awaitable<void> serve_v2(request::Exchange& exchange) const;

 private:
  // The Swagger 2.0 document as served: its JSON, and its protobuf form, made on the first request for it.
  struct ServedV2 {
    std::shared_ptr<const OpenApiDocument> json;
    std::once_flag protobuf_made;
    std::string protobuf;
    const std::string& protobuf_body();
  };
  // The current one: the built-in resources' alone, or with the dynamic ones merged in.
  std::shared_ptr<ServedV2> served_v2() const;

  const OpenApiDocuments& documents_;
  std::vector<DynamicOpenApiSource> dynamic_sources_;
  mutable std::mutex v2_mutex_;
  mutable std::shared_ptr<ServedV2> v2_builtin_;
  // The document with the dynamic resources, made again (JSON and protobuf) only when one of them has changed.
  mutable std::vector<std::shared_ptr<const DynamicOpenApi>> v2_made_from_;
  mutable std::shared_ptr<ServedV2> v2_merged_;
};

}  // namespace kapi::schema
