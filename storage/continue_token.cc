#include "storage/continue_token.h"

#include "base/base64.h"
#include "base/go_json_string.h"

#include <simdjson.h>

#include <cstdint>

namespace kapi::storage {
namespace {

constexpr std::string_view kTokenVersion = "meta.k8s.io/v1";
constexpr std::string_view kInvalid = "continue key is not valid";

[[noreturn]] void invalid(std::string_view detail) {
  throw InvalidContinueToken(std::string(kInvalid) + ": " + std::string(detail));
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
  base::append_go_json_string(json, key.substr(key_prefix.size()));
  json += '}';
  return base::base64_encode(json, base::Base64::kRawUrl);
}

ContinuePosition decode_continue(std::string_view token, std::string_view key_prefix) {
  // Go's RawURLEncoding decoding error passes through to the client as kube passes it.
  base::Base64Decoded bytes = base::base64_decode_with_error(token, base::Base64::kRawUrl);
  if (bytes.corrupt_at) invalid(bytes.error());
  const DecodedToken decoded = parse_token_json(bytes.bytes);
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
