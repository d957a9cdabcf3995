#include "server/http/request_parser.h"

#include <llhttp.h>

#include <charconv>

namespace kapi::http {

struct RequestParser::State {
  llhttp_t parser{};
  llhttp_settings_t settings{};
  Request current;
  std::string url;
  std::string field;
  std::string value;
  bool in_value = false;
  bool in_headers = false;      // from the request line's first byte to the end of the header section
  std::size_t header_bytes = 0;  // of the header section, raw, so far
  RequestParser* owner = nullptr;
};

namespace {

constexpr int kFail = -1;

RequestParser::State& state_of(llhttp_t* parser) { return *static_cast<RequestParser::State*>(parser->data); }

}  // namespace

bool set_request_target(const std::string& target, Request& request) {
  std::string_view rest = target;
  // absolute-form: "http://host/path?q" — keep the path and query.
  if (auto scheme = rest.find("://"); scheme != std::string_view::npos && rest.front() != '/') {
    auto slash = rest.find('/', scheme + 3);
    rest = slash == std::string_view::npos ? std::string_view("/") : rest.substr(slash);
  }
  if (rest.empty() || rest.front() != '/') return rest == "*";
  std::string_view path = rest;
  if (auto q = rest.find('?'); q != std::string_view::npos) {
    path = rest.substr(0, q);
    request.raw_query = std::string(rest.substr(q + 1));
  }
  auto decoded = percent_decode(path, /*plus_as_space=*/false);
  if (!decoded) return false;
  request.path = std::move(*decoded);
  request.query = QueryParams::parse(request.raw_query);
  return true;
}

struct RequestParser::Callbacks {
  static RequestParser& owner(llhttp_t* p) { return *state_of(p).owner; }

  static int fail(llhttp_t* p, int status, std::string message) {
    owner(p).failure_ = ParseFailure{status, std::move(message)};
    return kFail;
  }

  static void flush_header(State& s) {
    if (!s.field.empty() || s.in_value) s.current.headers.add(std::move(s.field), std::move(s.value));
    s.field.clear();
    s.value.clear();
    s.in_value = false;
  }

  static int on_message_begin(llhttp_t* p) {
    auto& s = state_of(p);
    s.current = Request{};
    s.url.clear();
    s.field.clear();
    s.value.clear();
    s.in_value = false;
    s.header_bytes = 0;
    s.in_headers = true;
    owner(p).in_message_ = true;
    return HPE_PAUSED;  // feed() counts the header section's bytes from here
  }

  static int on_url(llhttp_t* p, const char* at, std::size_t n) {
    state_of(p).url.append(at, n);
    return 0;
  }

  static int on_header_field(llhttp_t* p, const char* at, std::size_t n) {
    auto& s = state_of(p);
    if (s.in_value) flush_header(s);
    s.field.append(at, n);
    return 0;
  }

  static int on_header_value(llhttp_t* p, const char* at, std::size_t n) {
    auto& s = state_of(p);
    s.in_value = true;
    s.value.append(at, n);
    return 0;
  }

  static int on_headers_complete(llhttp_t* p) {
    auto& s = state_of(p);
    s.in_headers = false;
    flush_header(s);
    auto& r = s.current;
    r.method = llhttp_method_name(static_cast<llhttp_method_t>(p->method));
    r.version_minor = p->http_minor;
    r.keep_alive = llhttp_should_keep_alive(p) != 0;
    r.target = s.url;
    if (!set_request_target(s.url, r)) return fail(p, 400, "malformed request target");
    if (p->http_major != 1) return fail(p, 400, "unsupported HTTP version");
    if (auto length = r.headers.get("Content-Length")) {
      std::uint64_t n = 0;
      auto [ptr, ec] = std::from_chars(length->data(), length->data() + length->size(), n);
      if (ec == std::errc() && n > owner(p).limits_.max_body_bytes)
        return fail(p, 413, "limit is " + std::to_string(owner(p).limits_.max_body_bytes));
    }
    if (auto expect = r.headers.get("Expect"); expect && iequals(*expect, "100-continue"))
      owner(p).continue_pending_ = true;
    return HPE_PAUSED;  // feed() checks the header section's size before the body is read
  }

  static int on_body(llhttp_t* p, const char* at, std::size_t n) {
    auto& r = state_of(p).current;
    owner(p).continue_pending_ = false;
    if (r.body.size() + n > owner(p).limits_.max_body_bytes)
      return fail(p, 413, "limit is " + std::to_string(owner(p).limits_.max_body_bytes));
    r.body.append(at, n);
    return 0;
  }

  static int on_message_complete(llhttp_t* p) {
    auto& s = state_of(p);
    auto& o = owner(p);
    o.continue_pending_ = false;
    o.in_message_ = false;
    o.ready_.push_back(std::move(s.current));
    s.current = Request{};
    return 0;
  }
};

RequestParser::RequestParser(ParserLimits limits) : limits_(limits), state_(std::make_unique<State>()) {
  auto& s = *state_;
  llhttp_settings_init(&s.settings);
  s.settings.on_message_begin = &Callbacks::on_message_begin;
  s.settings.on_url = &Callbacks::on_url;
  s.settings.on_header_field = &Callbacks::on_header_field;
  s.settings.on_header_value = &Callbacks::on_header_value;
  s.settings.on_headers_complete = &Callbacks::on_headers_complete;
  s.settings.on_body = &Callbacks::on_body;
  s.settings.on_message_complete = &Callbacks::on_message_complete;
  llhttp_init(&s.parser, HTTP_REQUEST, &s.settings);
  s.parser.data = state_.get();
  s.owner = this;
}

RequestParser::~RequestParser() = default;

std::optional<ParseFailure> RequestParser::feed(std::string_view bytes) {
  if (failure_) return failure_;
  auto& state = *state_;
  auto& parser = state.parser;
  // Go reads at most MaxHeaderBytes and 4096 bytes of slack up to the end of the header section and answers 431
  // past that: raw bytes, wherever the reads split them. llhttp pauses where a message begins and where its header
  // section ends, so a call that starts inside the section reads only section bytes up to where it stops.
  const std::size_t header_limit = limits_.max_header_bytes + 4096;
  for (;;) {
    const bool in_header_section = state.in_headers;
    const llhttp_errno_t err = llhttp_execute(&parser, bytes.data(), bytes.size());
    const char* stop = err == HPE_OK ? bytes.data() + bytes.size() : llhttp_get_error_pos(&parser);
    if (in_header_section && stop != nullptr) {
      state.header_bytes += static_cast<std::size_t>(stop - bytes.data());
      if (state.header_bytes > header_limit) {
        failure_ = ParseFailure{431, "Request Header Fields Too Large"};
        return failure_;
      }
    }
    if (err == HPE_PAUSED) {
      llhttp_resume(&parser);
      bytes.remove_prefix(static_cast<std::size_t>(stop - bytes.data()));
      continue;
    }
    if (err == HPE_PAUSED_UPGRADE) {
      // Nothing after an upgrade request is HTTP: its handler either switches protocols and relays these bytes,
      // or answers normally and the connection closes.
      if (!ready_.empty()) ready_.back().keep_alive = false;
      if (stop != nullptr && stop >= bytes.data() && stop <= bytes.data() + bytes.size())
        upgraded_bytes_.assign(stop, static_cast<std::size_t>(bytes.data() + bytes.size() - stop));
      failure_ = ParseFailure{0, "upgrade"};
      return std::nullopt;
    }
    if (err == HPE_OK) return std::nullopt;
    if (!failure_) failure_ = ParseFailure{400, llhttp_get_error_reason(&parser) ? llhttp_get_error_reason(&parser) : "malformed request"};
    return failure_;
  }
}

bool RequestParser::take_continue_request() {
  bool pending = continue_pending_;
  continue_pending_ = false;
  return pending;
}

}  // namespace kapi::http
