#pragma once
// Response compression as kube-apiserver's deferredResponseWriter does it (handlers/responsewriters/writers.go,
// APIResponseCompression, on by default): a serialized object over 128 KiB goes out gzip-compressed when the
// request's Accept-Encoding names gzip, with Content-Encoding: gzip and Vary: Accept-Encoding; smaller bodies and
// watch streams stay as they are.
#include "request/exchange.h"

#include <asio/awaitable.hpp>

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace kapi::endpoints::handlers {

// kube's defaultGzipThresholdBytes: a body must be longer than this to be compressed.
inline constexpr std::size_t kGzipThresholdBytes = 128 * 1024;

// negotiateContentEncoding: one of the comma-separated Accept-Encoding tokens is exactly "gzip" (kube ignores
// q-values: "gzip;q=0" does not count, and neither does "*").
bool accepts_gzip(const http::Request& request);

// The gzip member (RFC 1952) of `data` at the speed-first level kube uses (gzip.BestSpeed).
std::string gzip_compress(std::string_view data);

class Deflater;

// One gzip member written piece by piece, for a response streamed in chunks: each call returns the compressed
// bytes zlib has ready (often none until its window fills); finish() returns the rest and the trailer.
class GzipStream {
 public:
  GzipStream();
  ~GzipStream();
  GzipStream(const GzipStream&) = delete;
  GzipStream& operator=(const GzipStream&) = delete;

  std::string write(std::string_view data);
  std::string finish();

 private:
  std::unique_ptr<Deflater> deflater_;
};

// Writes a complete serialized response with its Content-Type, compressed when kube's rule says so.
asio::awaitable<void> write_serialized(request::Exchange& exchange, int status, std::string content_type,
                                       std::string body);

}  // namespace kapi::endpoints::handlers
