#pragma once
// Base64 as Go's encoding/base64 writes and reads it: encoding/json's []byte and Secret data (standard alphabet,
// padded), JWS parts (URL alphabet, unpadded), kubeconfig's *-data fields. Encoding is OpenSSL's; decoding is Go's
// own algorithm, because what Go accepts (CR and LF skipped anywhere, nonzero trailing bits) and the offset its
// error names are visible to clients, where OpenSSL would accept other text and say nothing.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace kapi::base {

enum class Base64 {
  kStandard,  // base64.StdEncoding: A-Z a-z 0-9 + /, '=' padding
  kRawUrl,    // base64.RawURLEncoding: A-Z a-z 0-9 - _, no padding
};

std::string base64_encode(std::string_view bytes, Base64 encoding = Base64::kStandard);

struct Base64Decoded {
  std::string bytes;
  // base64.CorruptInputError: the offset of the first byte Go refuses; nullopt when the text decoded.
  std::optional<std::size_t> corrupt_at;

  // Go's error text, "illegal base64 data at input byte 4"; empty when the text decoded.
  std::string error() const;
};

// Encoding.DecodeString, with its error.
Base64Decoded base64_decode_with_error(std::string_view text, Base64 encoding = Base64::kStandard);

// Encoding.DecodeString when only success matters: std::nullopt when Go returns an error.
std::optional<std::string> base64_decode(std::string_view text, Base64 encoding = Base64::kStandard);

}  // namespace kapi::base
