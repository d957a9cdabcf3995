#include "bench/client/http_client.h"

#include <strings.h>

#include <asio/buffer.hpp>
#include <asio/connect.hpp>
#include <asio/read.hpp>
#include <asio/ssl/error.hpp>
#include <asio/use_awaitable.hpp>
#include <asio/write.hpp>

#include <llhttp.h>

#include <charconv>
#include <stdexcept>
#include <system_error>

namespace kapi::bench {
namespace {

constexpr std::size_t kReadBufferSize = 64 * 1024;

}  // namespace

// The state llhttp's C callbacks reach through parser.data.
struct HttpConnection::Parser {
  llhttp_t parser;
  llhttp_settings_t settings;
  HttpResponse* response = nullptr;
  BodyHandling body = BodyHandling::discard;
  BodySink* sink = nullptr;
  bool complete = false;
  bool in_retry_after = false;  // the header being parsed is Retry-After
  std::string header_field;

  Parser() {
    llhttp_settings_init(&settings);
    settings.on_header_field = [](llhttp_t* p, const char* at, std::size_t length) {
      auto& self = *static_cast<Parser*>(p->data);
      self.header_field.append(at, length);
      return 0;
    };
    settings.on_header_field_complete = [](llhttp_t* p) {
      auto& self = *static_cast<Parser*>(p->data);
      self.in_retry_after = self.header_field.size() == 11 && strncasecmp(self.header_field.data(), "retry-after", 11) == 0;
      self.header_field.clear();
      return 0;
    };
    settings.on_header_value = [](llhttp_t* p, const char* at, std::size_t length) {
      auto& self = *static_cast<Parser*>(p->data);
      if (self.in_retry_after)
        for (const char* c = at; c < at + length && *c >= '0' && *c <= '9'; ++c)
          self.response->retry_after_seconds = self.response->retry_after_seconds * 10 + (*c - '0');
      return 0;
    };
    settings.on_headers_complete = [](llhttp_t* p) {
      auto& self = *static_cast<Parser*>(p->data);
      self.response->status = p->status_code;
      if (self.sink != nullptr && *self.sink) (*self.sink)({});
      return 0;
    };
    settings.on_body = [](llhttp_t* p, const char* at, std::size_t length) {
      auto& self = *static_cast<Parser*>(p->data);
      if (self.sink != nullptr && *self.sink) {
        (*self.sink)({at, length});
      } else if (self.body == BodyHandling::keep) {
        self.response->body.append(at, length);
      }
      return 0;
    };
    settings.on_message_complete = [](llhttp_t* p) {
      static_cast<Parser*>(p->data)->complete = true;
      return static_cast<int>(HPE_PAUSED);  // leaves anything after this response unparsed
    };
    llhttp_init(&parser, HTTP_RESPONSE, &settings);
  }
};

HttpConnection::HttpConnection(asio::any_io_executor executor, ServerAddress server)
    : executor_(executor),
      socket_(std::move(executor)),
      server_(std::move(server)),
      host_header_(server_.host_header()),
      read_buffer_(std::make_unique<char[]>(kReadBufferSize)) {}

HttpConnection::~HttpConnection() = default;

void HttpConnection::close() noexcept {
  std::error_code ignored;
  auto& socket = tls_stream_ ? tls_stream_->next_layer() : socket_;
  socket.shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
  socket.close(ignored);
}

asio::awaitable<void> HttpConnection::connect() {
  if (!server_.tls) {
    co_await socket_.async_connect(server_.endpoint, asio::use_awaitable);
    socket_.set_option(asio::ip::tcp::no_delay(true));
    co_return;
  }
  tls_stream_ = std::make_unique<asio::ssl::stream<asio::ip::tcp::socket>>(executor_, *server_.tls);
  co_await tls_stream_->next_layer().async_connect(server_.endpoint, asio::use_awaitable);
  tls_stream_->next_layer().set_option(asio::ip::tcp::no_delay(true));
  co_await tls_stream_->async_handshake(asio::ssl::stream_base::client, asio::use_awaitable);
}

asio::awaitable<std::size_t> HttpConnection::read_some(char* buffer, std::size_t size) {
  if (tls_stream_) co_return co_await tls_stream_->async_read_some(asio::buffer(buffer, size), asio::use_awaitable);
  co_return co_await socket_.async_read_some(asio::buffer(buffer, size), asio::use_awaitable);
}

asio::awaitable<void> HttpConnection::write_all(const std::string& data) {
  if (tls_stream_)
    co_await asio::async_write(*tls_stream_, asio::buffer(data), asio::use_awaitable);
  else
    co_await asio::async_write(socket_, asio::buffer(data), asio::use_awaitable);
}

asio::awaitable<HttpResponse> HttpConnection::send(const HttpRequest& request, BodyHandling body) {
  return exchange(request, body, {});
}

asio::awaitable<HttpResponse> HttpConnection::send_streaming(const HttpRequest& request, BodySink sink) {
  return exchange(request, BodyHandling::discard, std::move(sink));
}

asio::awaitable<HttpResponse> HttpConnection::exchange(const HttpRequest& request, BodyHandling body, BodySink sink) {
  if (!(tls_stream_ ? tls_stream_->next_layer() : socket_).is_open()) co_await connect();
  request_buffer_.clear();
  request_buffer_.append(request.method).append(" ").append(request.target).append(" HTTP/1.1\r\nHost: ");
  request_buffer_.append(host_header_).append("\r\nUser-Agent: kapi-bench\r\nAccept: ").append(request.accept);
  request_buffer_.append("\r\n");
  if (!server_.authorization.empty())
    request_buffer_.append("Authorization: ").append(server_.authorization).append("\r\n");
  if (!request.body.empty() || request.method == "POST" || request.method == "PUT") {
    request_buffer_.append("Content-Type: ").append(request.content_type).append("\r\nContent-Length: ");
    request_buffer_.append(std::to_string(request.body.size())).append("\r\n");
  }
  request_buffer_.append("\r\n").append(request.body);

  HttpResponse response;
  Parser parser;
  parser.parser.data = &parser;
  parser.response = &response;
  parser.body = body;
  parser.sink = &sink;
  try {
    co_await write_all(request_buffer_);
    bytes_sent_ += request_buffer_.size();
    while (!parser.complete) {
      std::error_code error;
      std::size_t n = 0;
      try {
        n = co_await read_some(read_buffer_.get(), kReadBufferSize);
      } catch (const std::system_error& e) {
        error = e.code();
      }
      if (error == asio::error::eof || error == asio::ssl::error::stream_truncated) {
        // A body delimited by the connection's end is complete now; anything else ended too early.
        if (llhttp_finish(&parser.parser) == HPE_OK && parser.complete) break;
        throw std::system_error(asio::error::connection_reset, "server closed the connection mid-response");
      }
      if (error) throw std::system_error(error);
      response.bytes_received += n;
      auto result = llhttp_execute(&parser.parser, read_buffer_.get(), n);
      if (result != HPE_OK && result != HPE_PAUSED)
        throw std::system_error(std::make_error_code(std::errc::protocol_error),
                                std::string("bad HTTP response: ") + llhttp_errno_name(result));
    }
  } catch (...) {
    close();
    throw;
  }
  if (!llhttp_should_keep_alive(&parser.parser)) close();
  co_return response;
}

std::string ServerAddress::host_header() const {
  return endpoint.address().to_string() + ":" + std::to_string(endpoint.port());
}

ServerAddress parse_server_url(std::string_view url, std::shared_ptr<asio::ssl::context> tls) {
  const bool https = url.starts_with("https://");
  if (!https && !url.starts_with("http://")) throw std::invalid_argument("not an http(s):// URL: " + std::string(url));
  if (https && !tls) throw std::invalid_argument("an https:// server needs --kubeconfig (for its CA and client cert)");
  url.remove_prefix(https ? 8 : 7);
  if (auto slash = url.find('/'); slash != std::string_view::npos) url = url.substr(0, slash);
  auto colon = url.rfind(':');
  if (colon == std::string_view::npos) throw std::invalid_argument("URL without a port: " + std::string(url));
  unsigned port = 0;
  auto port_text = url.substr(colon + 1);
  auto [end, error] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (error != std::errc{} || end != port_text.data() + port_text.size() || port > 65535)
    throw std::invalid_argument("bad port in URL: " + std::string(url));
  auto host = url.substr(0, colon);
  if (host == "localhost") host = "127.0.0.1";
  if (host.starts_with('[') && host.ends_with(']')) host = host.substr(1, host.size() - 2);
  return {{asio::ip::make_address(std::string(host)), static_cast<unsigned short>(port)}, https ? std::move(tls) : nullptr};
}

}  // namespace kapi::bench
