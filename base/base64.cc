#include "base/base64.h"

#include <openssl/evp.h>

#include <array>
#include <cstdint>

namespace kapi::base {
namespace {

constexpr std::uint8_t kInvalid = 0xFF;

std::array<std::uint8_t, 256> decode_map(Base64 encoding) {
  constexpr std::string_view kLetters = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  std::array<std::uint8_t, 256> map{};
  map.fill(kInvalid);
  for (std::size_t i = 0; i < kLetters.size(); ++i)
    map[static_cast<unsigned char>(kLetters[i])] = static_cast<std::uint8_t>(i);
  map[encoding == Base64::kStandard ? '+' : '-'] = 62;
  map[encoding == Base64::kStandard ? '/' : '_'] = 63;
  return map;
}

bool is_newline(char c) { return c == '\r' || c == '\n'; }

// One step of Go's Encoding.decodeQuantum: up to four symbols from text[at], newlines skipped, padding checked.
// Appends the decoded bytes; returns where the next quantum starts, or sets `corrupt_at`.
std::size_t decode_quantum(std::string_view text, std::size_t at, const std::array<std::uint8_t, 256>& map,
                           bool padded, Base64Decoded& result) {
  std::array<std::uint8_t, 4> symbols{};
  std::size_t count = 4;
  for (std::size_t j = 0; j < 4; ++j) {
    if (at == text.size()) {
      if (j == 0) return at;
      if (j == 1 || padded) {
        result.corrupt_at = at - j;
        return at;
      }
      count = j;
      break;
    }
    const char in = text[at++];
    if (const std::uint8_t value = map[static_cast<unsigned char>(in)]; value != kInvalid) {
      symbols[j] = value;
      continue;
    }
    if (is_newline(in)) {
      --j;
      continue;
    }
    if (!padded || in != '=' || j < 2) {
      result.corrupt_at = at - 1;
      return at;
    }
    if (j == 2) {  // "==" expected, the first '=' already read
      while (at < text.size() && is_newline(text[at])) ++at;
      if (at == text.size()) {
        result.corrupt_at = text.size();
        return at;
      }
      if (text[at] != '=') {
        result.corrupt_at = at - 1;
        return at;
      }
      ++at;
    }
    while (at < text.size() && is_newline(text[at])) ++at;
    if (at < text.size()) result.corrupt_at = at;  // trailing garbage; Go still writes this quantum's bytes
    count = j;
    break;
  }
  const std::uint32_t group = std::uint32_t{symbols[0]} << 18 | std::uint32_t{symbols[1]} << 12 |
                              std::uint32_t{symbols[2]} << 6 | symbols[3];
  for (std::size_t i = 0; i + 1 < count; ++i) result.bytes += static_cast<char>(group >> (16 - 8 * i) & 0xFF);
  return at;
}

}  // namespace

std::string base64_encode(std::string_view bytes, Base64 encoding) {
  std::string out(4 * ((bytes.size() + 2) / 3) + 1, '\0');
  const int length =
      EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()), reinterpret_cast<const unsigned char*>(bytes.data()),
                      static_cast<int>(bytes.size()));
  out.resize(static_cast<std::size_t>(length));
  if (encoding == Base64::kRawUrl) {
    while (!out.empty() && out.back() == '=') out.pop_back();
    for (char& c : out) c = c == '+' ? '-' : c == '/' ? '_' : c;
  }
  return out;
}

std::string Base64Decoded::error() const {
  return corrupt_at ? "illegal base64 data at input byte " + std::to_string(*corrupt_at) : "";
}

Base64Decoded base64_decode_with_error(std::string_view text, Base64 encoding) {
  static const std::array<std::uint8_t, 256> kStandardMap = decode_map(Base64::kStandard);
  static const std::array<std::uint8_t, 256> kRawUrlMap = decode_map(Base64::kRawUrl);
  const bool padded = encoding == Base64::kStandard;
  const auto& map = padded ? kStandardMap : kRawUrlMap;
  Base64Decoded result;
  result.bytes.reserve(text.size() / 4 * 3 + 3);
  for (std::size_t at = 0; at < text.size() && !result.corrupt_at;) at = decode_quantum(text, at, map, padded, result);
  return result;
}

std::optional<std::string> base64_decode(std::string_view text, Base64 encoding) {
  Base64Decoded decoded = base64_decode_with_error(text, encoding);
  if (decoded.corrupt_at) return std::nullopt;
  return std::move(decoded.bytes);
}

}  // namespace kapi::base
