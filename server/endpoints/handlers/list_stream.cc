// A LIST answered as JSON is streamed, as kube-apiserver 1.33 does (StreamingCollectionsEncodingToJSON): written
// item by item in chunks of about 64 KiB, gzip-compressed as they go when kube's rule says so, straight from the
// objects the watch cache already holds. A LIST of N megabytes then costs the server a chunk, not a copy of every
// object plus an N-megabyte body (and its compressed twin). Small lists still go out whole with a Content-Length;
// large ones go out chunked, as Go's net/http sends any body it was not given all at once.
#include "server/endpoints/handlers/compression.h"
#include "server/endpoints/handlers/protobuf.h"
#include "server/endpoints/handlers/response.h"
#include "server/registry/object_meta.h"

#include <boost/json.hpp>

namespace kapi::endpoints::handlers {
namespace {

constexpr std::size_t kChunkBytes = 64 * 1024;

// The list item of a stored object: its JSON without kind and apiVersion and with metadata.resourceVersion set,
// spliced from the stored bytes in one pass when they have the shape kapi and Go write (TypeMeta first, then
// `"metadata":{`), else built the slow way.
void append_item(std::string& out, const storage::ObjectView& object, bool unstructured) {
  const std::string_view stored = object.value;
  if (unstructured) {  // the item as stored, kind and apiVersion included
    if (!registry::append_with_resource_version(out, stored, object.mod_revision))
      out += registry::with_resource_version(stored, object.mod_revision);
    return;
  }
  std::size_t rest = stored.starts_with('{') ? skip_string_field(stored, 1, "kind") : std::string_view::npos;
  if (rest != std::string_view::npos) rest = skip_string_field(stored, rest, "apiVersion");
  if (rest != std::string_view::npos) {
    out += '{';
    if (registry::append_with_resource_version(out, stored.substr(rest), object.mod_revision)) return;
    out.pop_back();
  }
  append_list_item(out, registry::with_resource_version(stored, object.mod_revision));
}

// Sends what has been written so far as one chunk (compressed first when the response is gzip).
class ChunkedBody {
 public:
  ChunkedBody(http::ResponseWriter& response, bool gzip)
      : response_(response), gzip_(gzip ? std::make_unique<GzipStream>() : nullptr) {
    buffer_.reserve(kChunkBytes + kChunkBytes / 4);
  }

  std::string& buffer() { return buffer_; }
  bool full() const { return buffer_.size() >= kChunkBytes; }

  // (An empty chunk would end the HTTP/1.1 body: none is sent.)
  asio::awaitable<void> flush() {
    if (gzip_) {
      std::string compressed = gzip_->write(buffer_);
      buffer_.clear();
      if (!compressed.empty()) co_await response_.write_chunk(compressed);
    } else if (!buffer_.empty()) {
      co_await response_.write_chunk(buffer_);
      buffer_.clear();  // keeps its capacity for the next chunk
    }
  }

  asio::awaitable<void> finish() {
    co_await flush();
    if (gzip_) {
      std::string trailer = gzip_->finish();
      if (!trailer.empty()) co_await response_.write_chunk(trailer);
    }
    co_await response_.end_stream();
  }

 private:
  http::ResponseWriter& response_;
  std::unique_ptr<GzipStream> gzip_;
  std::string buffer_;
};

}  // namespace

asio::awaitable<void> write_list(Scope& scope, const storage::SharedListResult& list) {
  const Output output = negotiate(scope.request(), has_protobuf_form(scope));
  if (output.encoding != Encoding::Json || output.representation != Representation::Object) {
    co_await write_list(scope, registry::to_object_list(list));
    co_return;
  }
  const auto& definition = scope.store.definition();
  std::string head = "{\"kind\":\"" + definition.list_kind() + "\",\"apiVersion\":\"" + definition.group_version() +
                     "\",\"metadata\":" +
                     boost::json::serialize(list_metadata(list.revision, list.continue_token, list.remaining_item_count)) +
                     ",\"items\":[";
  std::size_t estimate = head.size() + 2;
  for (const auto& item : list.items) estimate += item->value.size() + 32;  // + resourceVersion, comma

  if (estimate <= kGzipThresholdBytes) {
    std::string body = std::move(head);
    body.reserve(estimate);
    for (std::size_t i = 0; i < list.items.size(); ++i) {
      if (i) body += ',';
      append_item(body, *list.items[i], definition.unstructured);
    }
    body += "]}";
    std::string content_type = "application/json";
    co_await write_serialized(scope.exchange, 200, std::move(content_type), std::move(body));
    co_return;
  }

  auto& response = *scope.exchange.response;
  const bool gzip = accepts_gzip(scope.request());
  if (gzip) {
    response.headers().set("Content-Encoding", "gzip");
    response.headers().add("Vary", "Accept-Encoding");
  }
  response.headers().set("Content-Type", "application/json");
  co_await response.begin_stream(200);
  ChunkedBody body(response, gzip);
  body.buffer().append(head);
  for (std::size_t i = 0; i < list.items.size(); ++i) {
    if (i) body.buffer() += ',';
    append_item(body.buffer(), *list.items[i], definition.unstructured);
    if (body.full()) co_await body.flush();
  }
  body.buffer() += "]}";
  co_await body.finish();
}

}  // namespace kapi::endpoints::handlers
