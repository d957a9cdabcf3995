// Fuzzes kapi's HTTP/1.1 request parser (server/http/request_parser.h, on llhttp) as a connection drives it
// (connection.cc's serve(), standing in for Go's net/http server that kube-apiserver runs on): the byte stream
// arrives in reads of arbitrary size, the requests completed by each read are taken, and reading stops once the
// parser has stopped (a failure, or an upgrade request whose following bytes belong to the new protocol). Each
// request's query string then goes through server/http/query.h, as Go's url.ParseQuery reads it.
//
// The first input byte is the read size (0: the whole stream in one read); the rest is the stream. The limits are
// small so that the 413 and 431 paths are reached by small inputs (431 past 256 + Go's 4096 bytes of slack, within
// libFuzzer's default 4096-byte inputs only for the largest; the seeds hold longer ones).
//
// The parser reports malformed streams as a ParseFailure, never by throwing, so nothing here catches. Findings,
// besides crashes, sanitizer reports and timeouts:
//  - a failure status other than the header's 400, 413, 431 (or 0, an upgrade), or a request past the body limit;
//  - a parse that depends on how the stream was split: the requests, the failure status, the bytes left for an
//    upgraded protocol and whether a request is still in progress must be those of the stream read all at once,
//    since TCP may deliver the same bytes in any segmentation;
//  - a parser that goes on after it stopped;
//  - query strings and paths that do not survive Go's escaping: url.Values.Encode() parsed again by ParseQuery
//    gives the same pairs, and a decoded path escaped by EscapedPath() decodes to itself.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "server/http/query.h"
#include "server/http/request_parser.h"
#include "tests/fuzz/finding.h"

namespace {

using kapi::fuzz::finding;

using kapi::http::QueryParams;

constexpr kapi::http::ParserLimits kLimits{.max_header_bytes = 256, .max_body_bytes = 64};

// What a connection acts on for one request (not tls, remote_address or peer_certificate, which it sets itself).
struct ParsedRequest {
  std::string method, target, path, raw_query;
  std::vector<QueryParams::Pair> query;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  int version_minor = 0;
  bool keep_alive = false;

  bool operator==(const ParsedRequest&) const = default;
};

struct Outcome {
  std::vector<ParsedRequest> requests;
  std::optional<int> failure_status;
  std::string upgraded_bytes;  // what the new protocol receives: what the parser kept, then what was never fed
  bool in_message = false;

  bool operator==(const Outcome&) const = default;
};

std::vector<QueryParams::Pair> pairs_of(const QueryParams& params) { return {params.begin(), params.end()}; }

void check_query_and_path(const kapi::http::Request& request) {
  // url.Values.Encode() with the pairs in their order (Go sorts by key, which would not change what each key maps to).
  std::string encoded;
  for (const auto& [key, value] : request.query) {
    if (!encoded.empty()) encoded += '&';
    encoded += kapi::http::percent_encode_query_component(key);
    encoded += '=';
    encoded += kapi::http::percent_encode_query_component(value);
  }
  if (pairs_of(QueryParams::parse(encoded)) != pairs_of(request.query))
    finding("re-encoded query parses to other pairs");
  const auto path = kapi::http::percent_decode(kapi::http::percent_encode_path(request.path), false);
  if (!path || *path != request.path) finding("escaped path does not decode to itself");
}

ParsedRequest summary(kapi::http::Request&& request) {
  check_query_and_path(request);
  ParsedRequest parsed{std::move(request.method), std::move(request.target), std::move(request.path),
                       std::move(request.raw_query), pairs_of(request.query), {}, std::move(request.body),
                       request.version_minor, request.keep_alive};
  for (const auto& field : request.headers) parsed.headers.emplace_back(field.name, field.value);
  if (parsed.body.size() > kLimits.max_body_bytes) finding("a request body over the limit was accepted");
  return parsed;
}

Outcome parse(std::string_view stream, std::size_t read_size) {
  kapi::http::RequestParser parser(kLimits);
  Outcome outcome;
  std::size_t fed = 0;
  while (fed < stream.size() && !parser.stopped()) {
    const std::string_view read = stream.substr(fed, read_size);
    fed += read.size();
    parser.feed(read);
    parser.take_continue_request();  // a connection answers it between reads; it changes nothing parsed
    while (!parser.ready().empty()) {
      outcome.requests.push_back(summary(std::move(parser.ready().front())));
      parser.ready().pop_front();
    }
  }
  outcome.in_message = parser.in_message();
  if (!parser.stopped()) return outcome;

  const kapi::http::ParseFailure failure = *parser.failure();
  if (failure.status != 0 && failure.status != 400 && failure.status != 413 && failure.status != 431)
    finding("failure status outside 400, 413, 431 and 0");
  outcome.failure_status = failure.status;
  if (failure.status == 0) outcome.upgraded_bytes = parser.take_upgraded_bytes() + std::string(stream.substr(fed));

  // Whatever else arrives is not parsed.
  if (fed < stream.size()) {
    parser.feed(stream.substr(fed));
    if (!parser.ready().empty() || !parser.failure() || parser.failure()->status != failure.status)
      finding("the parser went on after it stopped");
  }
  return outcome;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::size_t read_size = data[0] == 0 ? size : data[0];
  const std::string_view stream(reinterpret_cast<const char*>(data) + 1, size - 1);

  const Outcome split = parse(stream, read_size);
  if (read_size < stream.size() && parse(stream, stream.size()) != split)
    finding("the stream parses differently when read in pieces");
  return 0;
}
