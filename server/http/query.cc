#include "server/http/query.h"

#include <algorithm>

namespace kapi::http {
namespace {

constexpr std::string_view kUpperHex = "0123456789ABCDEF";

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool is_unreserved(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
         c == '.' || c == '~';
}

void append_escaped(std::string& out, unsigned char c) {
  out.push_back('%');
  out.push_back(kUpperHex[c >> 4]);
  out.push_back(kUpperHex[c & 0x0F]);
}

}  // namespace

std::optional<std::string> percent_decode(std::string_view encoded, bool plus_as_space) {
  std::string decoded;
  decoded.reserve(encoded.size());
  for (std::size_t i = 0; i < encoded.size(); ++i) {
    const char c = encoded[i];
    if (c == '%') {
      if (i + 2 >= encoded.size()) return std::nullopt;
      const int high = hex_value(encoded[i + 1]);
      const int low = hex_value(encoded[i + 2]);
      if (high < 0 || low < 0) return std::nullopt;
      decoded.push_back(static_cast<char>((high << 4) | low));
      i += 2;
    } else if (c == '+' && plus_as_space) {
      decoded.push_back(' ');
    } else {
      decoded.push_back(c);
    }
  }
  return decoded;
}

std::string percent_encode_query_component(std::string_view raw) {
  std::string out;
  out.reserve(raw.size());
  for (const char ch : raw) {
    const auto c = static_cast<unsigned char>(ch);
    if (is_unreserved(c)) {
      out.push_back(ch);
    } else if (c == ' ') {
      out.push_back('+');
    } else {
      append_escaped(out, c);
    }
  }
  return out;
}

std::string percent_encode_path(std::string_view raw) {
  constexpr std::string_view kKeptReserved = "$&+,/:;=@";
  std::string out;
  out.reserve(raw.size());
  for (const char ch : raw) {
    const auto c = static_cast<unsigned char>(ch);
    if (is_unreserved(c) || kKeptReserved.find(ch) != std::string_view::npos) {
      out.push_back(ch);
    } else {
      append_escaped(out, c);
    }
  }
  return out;
}

QueryParams QueryParams::parse(std::string_view raw_query) {
  QueryParams params;
  params.raw_ = std::string(raw_query);
  std::string_view rest = raw_query;
  while (!rest.empty()) {
    const std::size_t amp = rest.find('&');
    const std::string_view pair = rest.substr(0, amp);
    rest = amp == std::string_view::npos ? std::string_view{} : rest.substr(amp + 1);
    // Go 1.17 stopped treating ';' as a separator and rejects such pairs instead of guessing.
    if (pair.empty() || pair.find(';') != std::string_view::npos) continue;
    const std::size_t eq = pair.find('=');
    const std::string_view raw_key = pair.substr(0, eq);
    const std::string_view raw_value = eq == std::string_view::npos ? std::string_view{} : pair.substr(eq + 1);
    auto key = percent_decode(raw_key, true);
    if (!key) continue;
    auto value = percent_decode(raw_value, true);
    if (!value) continue;
    params.pairs_.emplace_back(std::move(*key), std::move(*value));
  }
  return params;
}

std::optional<std::string_view> QueryParams::get(std::string_view key) const {
  const auto it = std::find_if(pairs_.begin(), pairs_.end(), [&](const Pair& p) { return p.first == key; });
  if (it == pairs_.end()) return std::nullopt;
  return std::string_view(it->second);
}

bool QueryParams::has(std::string_view key) const { return get(key).has_value(); }

std::vector<std::string_view> QueryParams::all(std::string_view key) const {
  std::vector<std::string_view> values;
  for (const auto& [k, v] : pairs_) {
    if (k == key) values.emplace_back(v);
  }
  return values;
}

}  // namespace kapi::http
