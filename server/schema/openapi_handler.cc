#include "server/schema/openapi_handler.h"

#include "base/go_time.h"
#include "server/apierrors/errors.h"
#include "server/http/status_response.h"

#include <chrono>

namespace kapi::schema {
namespace {

asio::awaitable<void> write_document(request::Exchange& exchange, const OpenApiDocument& document) {
  auto& headers = exchange.response->headers();
  const std::string etag = "\"" + document.hash + "\"";
  headers.set("Content-Type", "application/json");
  headers.set("ETag", etag);
  if (exchange.request.headers.get("If-None-Match").value_or("") == etag) {
    co_await exchange.response->write(304, "");
    co_return;
  }
  co_await exchange.response->write(200, document.body);
}

// Whether Accept admits JSON; a missing Accept does.
bool accepts_json(std::string_view accept) {
  if (accept.empty()) return true;
  return accept.find("application/json") != std::string_view::npos || accept.find("*/*") != std::string_view::npos;
}

}  // namespace

asio::awaitable<void> OpenApiHandler::serve_v3(request::Exchange& exchange) const {
  std::string_view path = exchange.request.path;
  path.remove_prefix(std::string_view("/openapi/v3").size());
  std::vector<std::shared_ptr<const DynamicOpenApi>> dynamic;
  for (const auto& source : dynamic_sources_) dynamic.push_back(source());
  if (path.empty() || path == "/") {
    if (dynamic.empty()) co_return co_await write_document(exchange, documents_.v3_root());
    boost::json::object paths = documents_.v3_root_paths();
    for (const auto& documents : dynamic)
      for (const auto& [name, document] : documents->v3)
        paths[name] = boost::json::object{{"serverRelativeURL", "/openapi/v3/" + name + "?hash=" + document.hash}};
    const OpenApiDocument root = openapi_document(boost::json::object{{"paths", std::move(paths)}});
    co_return co_await write_document(exchange, root);
  }

  const OpenApiDocument* document = documents_.v3(path.substr(1));
  for (const auto& documents : dynamic) {
    if (document) break;
    if (auto found = documents->v3.find(path.substr(1)); found != documents->v3.end()) document = &found->second;
  }
  if (!document) co_return co_await http::write_status(*exchange.response, apierrors::path_not_found());
  const std::string hash(exchange.request.query.get("hash").value_or(""));
  auto& headers = exchange.response->headers();
  if (!hash.empty() && hash != document->hash) {
    headers.set("Location", std::string(exchange.request.path) + "?hash=" + document->hash);
    co_return co_await exchange.response->write(301, "");
  }
  if (hash.empty()) {
    headers.set("Cache-Control", "no-cache, private");
  } else {
    headers.set("Cache-Control", "public, immutable");
    const auto expires = std::chrono::system_clock::now() + std::chrono::hours(24 * 365);
    headers.set("Expires", base::format_http_date(base::unix_time(expires).seconds));
  }
  co_await write_document(exchange, *document);
}

asio::awaitable<void> OpenApiHandler::serve_v2(request::Exchange& exchange) const {
  const std::string accept(exchange.request.headers.get("Accept").value_or(""));
  if (!accepts_json(accept)) co_return co_await http::write_status(*exchange.response, apierrors::path_not_found());
  std::vector<std::shared_ptr<const DynamicOpenApi>> dynamic;
  bool anything_dynamic = false;
  for (const auto& source : dynamic_sources_) {
    dynamic.push_back(source());
    anything_dynamic = anything_dynamic || !dynamic.back()->resources.empty() || !dynamic.back()->v2.empty();
  }
  if (!anything_dynamic) co_return co_await write_document(exchange, documents_.v2());
  std::shared_ptr<const OpenApiDocument> merged;
  {
    std::lock_guard lock(v2_mutex_);
    if (v2_made_from_ != dynamic) {
      std::vector<SchemaResource> resources;
      std::vector<boost::json::object> documents;
      for (const auto& part : dynamic) {
        resources.insert(resources.end(), part->resources.begin(), part->resources.end());
        documents.insert(documents.end(), part->v2.begin(), part->v2.end());
      }
      v2_merged_ = std::make_shared<const OpenApiDocument>(v2_document(documents_, resources, documents));
      v2_made_from_ = dynamic;
    }
    merged = v2_merged_;
  }
  co_await write_document(exchange, *merged);
}

}  // namespace kapi::schema
