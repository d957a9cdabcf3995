// Follows apimachinery's util/proxy/upgradeaware.go (tryUpgrade: the backend's 101 written to the hijacked client
// connection, then two io.Copy until one ends) and net/http/httputil's ReverseProxy (hop-by-hop headers, streaming).
#include "server/proxy/relay.h"

#include "base/race.h"

#include <algorithm>
#include <array>
#include <memory>
#include <optional>

namespace kapi::proxy {

namespace {

// A Content-Length body up to this size is relayed whole with its length; a bigger one is streamed (chunked to the
// client) so the proxy never holds more than this, or one read's worth, of a response.
constexpr std::uint64_t kWholeBodyLimit = 1 << 20;
constexpr std::size_t kCopyBufferBytes = 32 * 1024;  // io.Copy's buffer

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

// Each copy closes both connections when it ends, so the other's pending read ends too (kube returns from the
// handler when the first copy finishes, and the deferred closes do the same).
asio::awaitable<void> copy_client_to_backend(http::UpgradedStream& client, BackendConnection& backend) {
  auto buffer = std::make_unique_for_overwrite<char[]>(kCopyBufferBytes);
  try {
    for (;;) {
      auto reading = client.read_some(std::span<char>(buffer.get(), kCopyBufferBytes));
      const std::size_t n = co_await std::move(reading);
      if (n == 0) break;
      auto writing = backend.write(std::string_view(buffer.get(), n));
      co_await std::move(writing);
    }
  } catch (const std::exception&) {
    // The backend went away: the session ends as when the client closes.
  }
  client.close();
  backend.close();
}

asio::awaitable<void> copy_backend_to_client(BackendConnection& backend, http::UpgradedStream& client) {
  auto buffer = std::make_unique_for_overwrite<char[]>(kCopyBufferBytes);
  try {
    for (;;) {
      auto reading = backend.read_some(std::span<char>(buffer.get(), kCopyBufferBytes));
      const std::size_t n = co_await std::move(reading);
      if (n == 0) break;
      auto writing = client.write(std::string_view(buffer.get(), n));
      co_await std::move(writing);
    }
  } catch (const std::exception&) {
    // The client went away.
  }
  client.close();
  backend.close();
}

// tryUpgrade after the backend said 101: its head goes to the client as it came (less the framing the writer owns),
// then whatever each side sent early, then the two copies until one ends.
asio::awaitable<void> splice(http::ResponseWriter& response, BackendConnection& backend, const ResponseHead& head) {
  for (const auto& field : head.headers)
    if (!http::iequals(field.name, "Connection") && !http::iequals(field.name, "Content-Length") &&
        !http::iequals(field.name, "Transfer-Encoding"))
      response.headers().add(field.name, field.value);
  backend.set_deadline(BackendConnection::Clock::time_point::max());  // the stream lasts as long as its users want
  auto switching = response.switch_protocols();
  std::unique_ptr<http::UpgradedStream> client = co_await std::move(switching);
  try {
    const std::string early = backend.take_upgraded_bytes();
    if (!early.empty()) {
      auto writing = client->write(early);
      co_await std::move(writing);
    }
    auto copies = base::race(copy_client_to_backend(*client, backend), copy_backend_to_client(backend, *client));
    co_await std::move(copies);
  } catch (const std::exception&) {
    // One side went away mid-write: the end of the session, like the other side closing.
  }
  client->close();
  backend.close();
}

}  // namespace

bool is_hop_by_hop(std::string_view name) {
  for (std::string_view hop : {"Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authenticate",
                               "Proxy-Authorization", "Te", "Trailer", "Transfer-Encoding", "Upgrade"})
    if (http::iequals(name, hop)) return true;
  return false;
}

std::vector<std::string> connection_tokens(const http::Headers& headers) {
  std::vector<std::string> tokens;
  for (auto value : headers.all("Connection")) {
    while (!value.empty()) {
      auto comma = value.find(',');
      auto token = trim(value.substr(0, comma));
      if (!token.empty()) tokens.emplace_back(token);
      value = comma == std::string_view::npos ? std::string_view() : value.substr(comma + 1);
    }
  }
  return tokens;
}

bool named_in(const std::vector<std::string>& tokens, std::string_view name) {
  return std::any_of(tokens.begin(), tokens.end(), [&](const std::string& token) { return http::iequals(token, name); });
}

bool is_upgrade_request(const http::Request& request) {
  for (auto value : request.headers.all("Connection")) {
    std::string lower(value);
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; });
    if (lower.find("upgrade") != std::string::npos) return true;
  }
  return false;
}

void copy_response_headers(const http::Headers& from, http::Headers& to) {
  auto named = connection_tokens(from);
  for (const auto& field : from) {
    const auto& name = field.name;
    if (is_hop_by_hop(name) || named_in(named, name) || http::iequals(name, "Content-Length") ||
        http::iequals(name, "Access-Control-Allow-Credentials") || http::iequals(name, "Access-Control-Allow-Headers") ||
        http::iequals(name, "Access-Control-Allow-Methods") || http::iequals(name, "Access-Control-Allow-Origin"))
      continue;
    // Added, not set, as ReverseProxy's copyHeader adds to what the filters put there (Audit-Id, say).
    to.add(name, field.value);
  }
}

asio::awaitable<void> relay_response(http::ResponseWriter& response, BackendConnection& backend, ResponseHead head,
                                     bool head_request) {
  if (head.status == 101) {
    co_await splice(response, backend, head);
    co_return;
  }
  copy_response_headers(head.headers, response.headers());
  const bool whole = head_request || head.status == 204 || head.status == 304 ||
                     (head.status >= 100 && head.status < 200) ||
                     (!head.chunked && head.content_length && *head.content_length <= kWholeBodyLimit);
  if (whole) {
    std::string body;
    for (;;) {
      std::optional<std::string> piece = co_await backend.read_body();
      if (!piece) break;
      body.append(*piece);
    }
    co_await response.write(head.status, std::move(body));
    co_return;
  }
  // Streamed: each piece goes out as soon as it arrives (a watch event or a log line must not wait for the next).
  co_await response.begin_stream(head.status);
  for (;;) {
    std::optional<std::string> piece = co_await backend.read_body();
    if (!piece) break;
    co_await response.write_chunk(*piece);
  }
  co_await response.end_stream();
}

}  // namespace kapi::proxy
