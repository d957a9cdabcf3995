#include "storage/continue_token.h"

#include <simdjson.h>

#include <array>
#include <cstdint>
#include <optional>

namespace kapi::storage {
namespace {

constexpr std::string_view kTokenVersion = "meta.k8s.io/v1";
constexpr std::string_view kInvalid = "continue key is not valid";
constexpr std::string_view kUrlAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

[[noreturn]] void invalid(std::string_view detail) {
  throw InvalidContinueToken(std::string(kInvalid) + ": " + std::string(detail));
}

// Go's base64.RawURLEncoding.EncodeToString.
std::string base64_url_encode(std::string_view in) {
  std::string out;
  out.reserve((in.size() * 4 + 2) / 3);
  std::size_t i = 0;
  for (; i + 3 <= in.size(); i += 3) {
    const std::uint32_t v = (std::uint8_t(in[i]) << 16) | (std::uint8_t(in[i + 1]) << 8) | std::uint8_t(in[i + 2]);
    for (int shift : {18, 12, 6, 0}) out += kUrlAlphabet[(v >> shift) & 0x3f];
  }
  const std::size_t rest = in.size() - i;
  if (rest > 0) {
    std::uint32_t v = std::uint8_t(in[i]) << 16;
    if (rest == 2) v |= std::uint8_t(in[i + 1]) << 8;
    out += kUrlAlphabet[(v >> 18) & 0x3f];
    out += kUrlAlphabet[(v >> 12) & 0x3f];
    if (rest == 2) out += kUrlAlphabet[(v >> 6) & 0x3f];
  }
  return out;
}

// Go's base64.RawURLEncoding.DecodeString, including its leniencies (CR/LF skipped, trailing bits ignored) and
// its error text, which kube passes through to the client.
std::string base64_url_decode(std::string_view in) {
  std::array<std::int8_t, 256> value{};
  value.fill(-1);
  for (std::size_t i = 0; i < kUrlAlphabet.size(); ++i) value[std::uint8_t(kUrlAlphabet[i])] = std::int8_t(i);

  std::string out;
  out.reserve(in.size() * 3 / 4);
  std::uint32_t bits = 0;
  int quantum = 0;  // sextets read in the current 4-character quantum
  for (std::size_t i = 0; i < in.size(); ++i) {
    const char c = in[i];
    if (c == '\r' || c == '\n') continue;
    const int v = value[std::uint8_t(c)];
    if (v < 0) invalid("illegal base64 data at input byte " + std::to_string(i));
    bits = (bits << 6) | std::uint32_t(v);
    if (++quantum == 4) {
      out += char((bits >> 16) & 0xff);
      out += char((bits >> 8) & 0xff);
      out += char(bits & 0xff);
      bits = 0;
      quantum = 0;
    }
  }
  if (quantum == 1) invalid("illegal base64 data at input byte " + std::to_string(in.size() - 1));
  if (quantum == 2) out += char((bits >> 4) & 0xff);
  if (quantum == 3) {
    out += char((bits >> 10) & 0xff);
    out += char((bits >> 2) & 0xff);
  }
  return out;
}

// Decodes one UTF-8 sequence the way Go's utf8.DecodeRuneInString does; nullopt for an invalid one.
std::optional<std::pair<char32_t, std::size_t>> decode_utf8(std::string_view s, std::size_t at) {
  const auto b0 = std::uint8_t(s[at]);
  std::size_t len = 0;
  char32_t rune = 0;
  char32_t min = 0;
  if (b0 >= 0xc2 && b0 <= 0xdf) {
    len = 2, rune = b0 & 0x1f, min = 0x80;
  } else if (b0 >= 0xe0 && b0 <= 0xef) {
    len = 3, rune = b0 & 0x0f, min = 0x800;
  } else if (b0 >= 0xf0 && b0 <= 0xf4) {
    len = 4, rune = b0 & 0x07, min = 0x10000;
  } else {
    return std::nullopt;
  }
  if (at + len > s.size()) return std::nullopt;
  for (std::size_t k = 1; k < len; ++k) {
    const auto b = std::uint8_t(s[at + k]);
    if ((b & 0xc0) != 0x80) return std::nullopt;
    rune = (rune << 6) | (b & 0x3f);
  }
  if (rune < min || rune > 0x10ffff || (rune >= 0xd800 && rune <= 0xdfff)) return std::nullopt;
  return std::pair{rune, len};
}

// A JSON string literal exactly as Go's encoding/json writes it (HTML-safe escaping, invalid UTF-8 as U+FFFD).
void append_go_json_string(std::string& out, std::string_view s) {
  constexpr std::string_view hex = "0123456789abcdef";
  out += '"';
  for (std::size_t i = 0; i < s.size();) {
    const auto b = std::uint8_t(s[i]);
    if (b < 0x80) {
      switch (b) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\b': out += "\\b"; break;
        case '\f': out += "\\f"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        default:
          if (b < 0x20 || b == '<' || b == '>' || b == '&') {
            out += "\\u00";
            out += hex[b >> 4];
            out += hex[b & 0xf];
          } else {
            out += char(b);
          }
      }
      ++i;
      continue;
    }
    const auto rune = decode_utf8(s, i);
    if (!rune) {
      out += "\\ufffd";
      ++i;
    } else if (rune->first == 0x2028 || rune->first == 0x2029) {
      out += rune->first == 0x2028 ? "\\u2028" : "\\u2029";
      i += rune->second;
    } else {
      out.append(s.substr(i, rune->second));
      i += rune->second;
    }
  }
  out += '"';
}

bool equal_fold_ascii(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c; };
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

struct DecodedToken {
  std::string version;
  std::int64_t revision = 0;
  std::string start;
};

std::string_view json_type_name(simdjson::dom::element_type type) {
  using T = simdjson::dom::element_type;
  switch (type) {
    case T::ARRAY: return "array";
    case T::OBJECT: return "object";
    case T::STRING: return "string";
    case T::BOOL: return "bool";
    case T::NULL_VALUE: return "null";
    default: return "number";
  }
}

// json.Unmarshal into continueToken: field names match case-insensitively, unknown fields and nulls are ignored.
DecodedToken parse_token_json(const std::string& json) {
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (auto error = parser.parse(json).get(root)) invalid(simdjson::error_message(error));
  simdjson::dom::object object;
  if (root.get(object)) {
    invalid("json: cannot unmarshal " + std::string(json_type_name(root.type())) +
            " into Go value of type storage.continueToken");
  }
  DecodedToken token;
  auto type_error = [](const simdjson::dom::element& value, std::string_view field, std::string_view go_type) {
    invalid("json: cannot unmarshal " + std::string(json_type_name(value.type())) +
            " into Go struct field continueToken." + std::string(field) + " of type " + std::string(go_type));
  };
  for (auto [name, value] : object) {
    if (value.is_null()) continue;
    if (equal_fold_ascii(name, "v")) {
      std::string_view text;
      if (value.get(text)) type_error(value, "v", "string");
      token.version = std::string(text);
    } else if (equal_fold_ascii(name, "rv")) {
      std::int64_t revision = 0;
      if (value.get(revision)) type_error(value, "rv", "int64");
      token.revision = revision;
    } else if (equal_fold_ascii(name, "start")) {
      std::string_view text;
      if (value.get(text)) type_error(value, "start", "string");
      token.start = std::string(text);
    }
  }
  return token;
}

}  // namespace

std::string clean_path(std::string_view path) {
  if (path.empty()) return ".";
  const bool rooted = path[0] == '/';
  const std::size_t n = path.size();
  std::string out;
  std::size_t r = 0;
  std::size_t dotdot = 0;  // where ".." may no longer back up
  if (rooted) {
    out += '/';
    r = dotdot = 1;
  }
  while (r < n) {
    if (path[r] == '/') {
      ++r;
    } else if (path[r] == '.' && (r + 1 == n || path[r + 1] == '/')) {
      ++r;
    } else if (path[r] == '.' && path[r + 1] == '.' && (r + 2 == n || path[r + 2] == '/')) {
      r += 2;
      if (out.size() > dotdot) {
        // Back up to the previous separator (dropping it too), but never past `dotdot`.
        std::size_t w = out.size() - 1;
        while (w > dotdot && out[w] != '/') --w;
        out.resize(w);
      } else if (!rooted) {
        if (!out.empty()) out += '/';
        out += "..";
        dotdot = out.size();
      }
    } else {
      if ((rooted && out.size() != 1) || (!rooted && !out.empty())) out += '/';
      for (; r < n && path[r] != '/'; ++r) out += path[r];
    }
  }
  return out.empty() ? "." : out;
}

std::string encode_continue(std::string_view key, std::string_view key_prefix, Revision revision) {
  if (key_prefix.empty() || !key.starts_with(key_prefix)) {
    throw std::invalid_argument("unable to encode next field: the key and key prefix do not match " +
                                std::string(key_prefix) + " " + std::string(key));
  }
  std::string json = "{\"v\":\"";
  json += kTokenVersion;
  json += "\",\"rv\":";
  json += std::to_string(revision);
  json += ",\"start\":";
  append_go_json_string(json, key.substr(key_prefix.size()));
  json += '}';
  return base64_url_encode(json);
}

ContinuePosition decode_continue(std::string_view token, std::string_view key_prefix) {
  const DecodedToken decoded = parse_token_json(base64_url_decode(token));
  if (decoded.version != kTokenVersion) {
    throw InvalidContinueToken(std::string(kInvalid) + ": server does not recognize this encoded version " +
                               decoded.version);
  }
  if (decoded.revision == 0) {
    throw InvalidContinueToken(std::string(kInvalid) +
                               ": incorrect encoded start resourceVersion (version meta.k8s.io/v1)");
  }
  if (decoded.start.empty()) {
    throw InvalidContinueToken(std::string(kInvalid) + ": encoded start key empty (version meta.k8s.io/v1)");
  }
  // A cleaned, rooted start key cannot climb above key_prefix once appended to it.
  std::string rooted = decoded.start.starts_with('/') ? decoded.start : "/" + decoded.start;
  if (clean_path(rooted) != rooted) invalid(decoded.start);
  return ContinuePosition{std::string(key_prefix) + rooted.substr(1), decoded.revision};
}

}  // namespace kapi::storage
