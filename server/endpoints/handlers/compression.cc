#include "server/endpoints/handlers/compression.h"

#include <zlib.h>

#include <algorithm>
#include <stdexcept>

namespace kapi::endpoints::handlers {
namespace {

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

}  // namespace

// A z_stream that is always ended, whatever leaves the scope.
class Deflater {
 public:
  Deflater() {
    // 15 window bits + 16: a gzip header and trailer around the deflate stream.
    if (deflateInit2(&stream_, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
      throw std::runtime_error("gzip: deflateInit2 failed");
  }
  ~Deflater() { deflateEnd(&stream_); }
  Deflater(const Deflater&) = delete;
  Deflater& operator=(const Deflater&) = delete;

  std::string compress(std::string_view data) {
    std::string out(deflateBound(&stream_, static_cast<uLong>(data.size())), '\0');
    stream_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
    stream_.avail_in = static_cast<uInt>(data.size());
    stream_.next_out = reinterpret_cast<Bytef*>(out.data());
    stream_.avail_out = static_cast<uInt>(out.size());
    if (deflate(&stream_, Z_FINISH) != Z_STREAM_END) throw std::runtime_error("gzip: deflate did not finish");
    out.resize(stream_.total_out);
    return out;
  }

  // Compresses `data` into the end of `out`; with `finish`, ends the member too.
  void compress_some(std::string_view data, bool finish, std::string& out) {
    stream_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
    stream_.avail_in = static_cast<uInt>(data.size());
    for (;;) {
      const std::size_t used = out.size();
      out.resize(used + std::max<std::size_t>(deflateBound(&stream_, stream_.avail_in), 4096));
      stream_.next_out = reinterpret_cast<Bytef*>(out.data() + used);
      stream_.avail_out = static_cast<uInt>(out.size() - used);
      const int result = deflate(&stream_, finish ? Z_FINISH : Z_NO_FLUSH);
      out.resize(out.size() - stream_.avail_out);
      if (result == Z_STREAM_END || (!finish && stream_.avail_in == 0 && stream_.avail_out != 0)) return;
      if (result != Z_OK && result != Z_BUF_ERROR) throw std::runtime_error("gzip: deflate failed");
    }
  }

 private:
  z_stream stream_{};
};

GzipStream::GzipStream() : deflater_(std::make_unique<Deflater>()) {}
GzipStream::~GzipStream() = default;

std::string GzipStream::write(std::string_view data) {
  std::string out;
  deflater_->compress_some(data, false, out);
  return out;
}

std::string GzipStream::finish() {
  std::string out;
  deflater_->compress_some({}, true, out);
  return out;
}

bool accepts_gzip(const http::Request& request) {
  auto encodings = request.headers.get("Accept-Encoding");  // Go's Header.Get: the first field only
  if (!encodings) return false;
  std::string_view rest = *encodings;
  while (!rest.empty()) {
    const auto comma = rest.find(',');
    if (trim(rest.substr(0, comma)) == "gzip") return true;
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return false;
}

std::string gzip_compress(std::string_view data) { return Deflater().compress(data); }

asio::awaitable<void> write_serialized(request::Exchange& exchange, int status, std::string content_type,
                                       std::string body) {
  auto& response = *exchange.response;
  // Compressed inline: at BestSpeed zlib takes a few milliseconds per MiB, and handlers have no pool to hand
  // work to (the only one belongs to the embedded store).
  if (body.size() > kGzipThresholdBytes && accepts_gzip(exchange.request)) {
    body = gzip_compress(body);
    response.headers().set("Content-Encoding", "gzip");
    response.headers().add("Vary", "Accept-Encoding");
  }
  response.headers().set("Content-Type", std::move(content_type));
  co_await response.write(status, std::move(body));
}

}  // namespace kapi::endpoints::handlers
