#pragma once
// Serves the OpenAPI documents as kube-openapi's handlers do: /openapi/v3 lists each group version's document
// with its hash; /openapi/v3/<group version>?hash=<current> is immutable (cacheable for a year), a stale hash is
// redirected to the current one; every document has an ETag and answers If-None-Match with 304. /openapi/v2
// is served as JSON; kapi does not make its protobuf form, so a client that accepts only that gets 404 — which
// kubectl reads as "not available" (JSON under that Accept would break it).
#include "filters/filter.h"
#include "server/schema/openapi.h"

namespace kapi::schema {

class OpenApiHandler {
 public:
  explicit OpenApiHandler(const OpenApiDocuments& documents) : documents_(documents) {}

  asio::awaitable<void> serve_v3(filters::Exchange& exchange) const;
  asio::awaitable<void> serve_v2(filters::Exchange& exchange) const;

 private:
  const OpenApiDocuments& documents_;
};

}  // namespace kapi::schema
