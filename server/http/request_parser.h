#pragma once
// Incremental HTTP/1.1 request parsing on llhttp, with kube-apiserver's limits (Go's net/http 1 MiB of
// headers, the apiserver's 3 MiB of body). Pipelined requests come out in order.
#include "base/ring_queue.h"
#include "server/http/request.h"

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace kapi::http {

// Fills `request`'s path (percent-decoded), raw_query and query from a request-target (origin or absolute form,
// or "*"), as the HTTP/1.1 parser does and as HTTP/2's :path is read; false when it is malformed.
bool set_request_target(const std::string& target, Request& request);

struct ParserLimits {
  // Go's MaxHeaderBytes: the request line and headers may take it and 4096 bytes of slack, as raw bytes.
  std::size_t max_header_bytes = 1 << 20;
  std::size_t max_body_bytes = 3 << 20;
};

// Why the byte stream cannot go on: answer with `status` and close the connection.
struct ParseFailure {
  int status = 400;  // 400 malformed, 413 body too large, 431 headers too large
  std::string message;
};

class RequestParser {
 public:
  explicit RequestParser(ParserLimits limits);
  ~RequestParser();
  RequestParser(const RequestParser&) = delete;
  RequestParser& operator=(const RequestParser&) = delete;

  // Parses the bytes; complete requests are queued in ready(). After a failure, nothing more is parsed.
  std::optional<ParseFailure> feed(std::string_view bytes);

  base::RingQueue<Request>& ready() { return ready_; }
  // True once per request whose headers asked for "Expect: 100-continue" and whose body has not arrived.
  bool take_continue_request();
  // Some bytes of a request not yet complete have arrived.
  bool in_message() const { return in_message_; }
  // No more requests will come from this stream (a failure, or an upgrade request was seen).
  bool stopped() const { return failure_.has_value(); }
  // Why parsing stopped; status 0 means an upgrade request, which is answered and then the connection closed.
  const std::optional<ParseFailure>& failure() const { return failure_; }
  // After an upgrade request: the bytes that followed it, which belong to the new protocol (taken once).
  std::string take_upgraded_bytes() { return std::move(upgraded_bytes_); }

 private:
  struct Callbacks;
  friend struct Callbacks;

 public:
  struct State;  // llhttp's state and the request being assembled (defined in the .cc)

 private:
  ParserLimits limits_;
  std::unique_ptr<State> state_;
  base::RingQueue<Request> ready_;
  std::optional<ParseFailure> failure_;
  std::string upgraded_bytes_;
  bool in_message_ = false;
  bool continue_pending_ = false;
};

}  // namespace kapi::http
