#include "server/schema/openapi_handler.h"

#include "base/go_time.h"
#include "server/apierrors/errors.h"
#include "server/http/status_response.h"
#include "server/schema/openapi_v2_proto.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <utility>

namespace kapi::schema {
namespace {

// The document's bytes under the ETag of its JSON (kube-openapi's handlers hash the JSON for either form).
asio::awaitable<void> write_document(request::Exchange& exchange, const OpenApiDocument& document,
                                     const std::string* body = nullptr,
                                     std::string_view content_type = "application/json") {
  auto& headers = exchange.response->headers();
  const std::string etag = "\"" + document.hash + "\"";
  headers.set("Content-Type", std::string(content_type));
  headers.set("ETag", etag);
  if (exchange.request.headers.get("If-None-Match").value_or("") == etag) {
    co_await exchange.response->write(304, "");
    co_return;
  }
  const std::string& bytes = body ? *body : document.body;
  co_await exchange.response->write(200, bytes);
}

constexpr std::string_view kProtobufV2 = "com.github.proto-openapi.spec.v2.v1.0+protobuf";
constexpr std::string_view kProtobufV2Deprecated = "com.github.proto-openapi.spec.v2@v1.0+protobuf";

enum class V2Format { kJson, kProtobuf, kNone };

// kube-openapi's choice for /openapi/v2: Accept's media ranges by quality (goautoneg's order: higher q first,
// then the more specific), and for each the first of application/json and the two protobuf names it matches. No
// Accept is */*.
V2Format v2_format(std::string_view accept) {
  struct Clause {
    std::string type, subtype;
    double q = 1;
  };
  std::vector<Clause> clauses;
  if (accept.empty()) accept = "*/*";
  auto trim = [](std::string_view text) {
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
    return text;
  };
  while (!accept.empty()) {
    const std::size_t comma = accept.find(',');
    std::string_view part = accept.substr(0, comma);
    accept = comma == std::string_view::npos ? std::string_view() : accept.substr(comma + 1);
    Clause clause;
    const std::size_t semicolon = part.find(';');
    std::string_view range = trim(part.substr(0, semicolon));
    for (std::string_view params = semicolon == std::string_view::npos ? "" : part.substr(semicolon + 1);
         !params.empty();) {
      const std::size_t next = params.find(';');
      const std::string_view param = trim(params.substr(0, next));
      params = next == std::string_view::npos ? std::string_view() : params.substr(next + 1);
      if (param.starts_with("q=")) clause.q = std::atof(std::string(param.substr(2)).c_str());
    }
    const std::size_t slash = range.find('/');
    clause.type = std::string(trim(range.substr(0, slash)));
    clause.subtype = slash == std::string_view::npos ? "*" : std::string(trim(range.substr(slash + 1)));
    if (!clause.type.empty() && clause.q > 0) clauses.push_back(std::move(clause));
  }
  auto specificity = [](const Clause& clause) { return (clause.type != "*") + (clause.subtype != "*"); };
  std::stable_sort(clauses.begin(), clauses.end(), [&](const Clause& a, const Clause& b) {
    return a.q != b.q ? a.q > b.q : specificity(a) > specificity(b);
  });
  for (const Clause& clause : clauses) {
    if (clause.type != "application" && clause.type != "*") continue;
    for (auto [subtype, format] :
         {std::pair{std::string_view("json"), V2Format::kJson}, std::pair{kProtobufV2Deprecated, V2Format::kProtobuf},
          std::pair{kProtobufV2, V2Format::kProtobuf}})
      if (clause.subtype == subtype || clause.subtype == "*") return format;
  }
  return V2Format::kNone;
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

const std::string& OpenApiHandler::ServedV2::protobuf_body() {
  std::call_once(protobuf_made, [this] { protobuf = openapi_v2_protobuf(json->body); });
  return protobuf;
}

std::shared_ptr<OpenApiHandler::ServedV2> OpenApiHandler::served_v2() const {
  std::vector<std::shared_ptr<const DynamicOpenApi>> dynamic;
  bool anything_dynamic = false;
  for (const auto& source : dynamic_sources_) {
    dynamic.push_back(source());
    anything_dynamic = anything_dynamic || !dynamic.back()->resources.empty() || !dynamic.back()->v2.empty();
  }
  std::lock_guard lock(v2_mutex_);
  if (!anything_dynamic) {
    if (!v2_builtin_) {
      v2_builtin_ = std::make_shared<ServedV2>();
      // documents_ outlives the handler: the pointer shares no ownership.
      v2_builtin_->json = std::shared_ptr<const OpenApiDocument>(std::shared_ptr<void>(), &documents_.v2());
    }
    return v2_builtin_;
  }
  if (!v2_merged_ || v2_made_from_ != dynamic) {
    std::vector<SchemaResource> resources;
    std::vector<boost::json::object> documents;
    for (const auto& part : dynamic) {
      resources.insert(resources.end(), part->resources.begin(), part->resources.end());
      documents.insert(documents.end(), part->v2.begin(), part->v2.end());
    }
    v2_merged_ = std::make_shared<ServedV2>();
    v2_merged_->json = std::make_shared<const OpenApiDocument>(v2_document(documents_, resources, documents));
    v2_made_from_ = std::move(dynamic);
  }
  return v2_merged_;
}

asio::awaitable<void> OpenApiHandler::serve_v2(request::Exchange& exchange) const {
  const V2Format format = v2_format(exchange.request.headers.get("Accept").value_or(""));
  exchange.response->headers().add("Vary", "Accept");
  if (format == V2Format::kNone) co_return co_await exchange.response->write(406, "");
  const std::shared_ptr<ServedV2> served = served_v2();
  if (format == V2Format::kJson) co_return co_await write_document(exchange, *served->json);
  const std::string& body = served->protobuf_body();
  const std::string content_type = "application/" + std::string(kProtobufV2);
  co_await write_document(exchange, *served->json, &body, content_type);
}

}  // namespace kapi::schema
