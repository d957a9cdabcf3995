#include "server/registry/object_meta.h"

#include "base/go_time.h"
#include "server/registry/json_fields.h"

#include <openssl/rand.h>

#include <boost/json.hpp>

#include <array>
#include <chrono>
#include <cstdio>
#include <stdexcept>

namespace kapi::registry {
namespace {

template <std::size_t N>
std::array<unsigned char, N> random_bytes() {
  std::array<unsigned char, N> bytes{};
  if (RAND_bytes(bytes.data(), static_cast<int>(bytes.size())) != 1) throw std::runtime_error("RAND_bytes failed");
  return bytes;
}

}  // namespace

std::string rfc3339_now() { return base::format_rfc3339(base::unix_time(std::chrono::system_clock::now()).seconds); }

std::string generate_name_suffix() {
  // k8s.io/apimachinery/pkg/util/rand: no vowels (no words), no confusable characters.
  static constexpr std::string_view kAlphabet = "bcdfghjklmnpqrstvwxz2456789";
  auto bytes = random_bytes<5>();
  std::string out;
  for (unsigned char b : bytes) out += kAlphabet[b % kAlphabet.size()];
  return out;
}

bool append_with_resource_version(std::string& out, std::string_view stored, storage::Revision revision) {
  // Our own encoder and Go's both write `"metadata":{` with no spaces, before any nested metadata.
  constexpr std::string_view kMetadata = "\"metadata\":{";
  const auto at = stored.find(kMetadata);
  if (at == std::string_view::npos) return false;
  const auto insert = at + kMetadata.size();
  out.append(stored.substr(0, insert)).append("\"resourceVersion\":\"").append(std::to_string(revision)).append("\"");
  if (insert < stored.size() && stored[insert] != '}') out += ',';
  out.append(stored.substr(insert));
  return true;
}

std::string with_resource_version(std::string_view stored, storage::Revision revision) {
  std::string out;
  out.reserve(stored.size() + 48);
  if (append_with_resource_version(out, stored, revision)) return out;
  boost::json::value value = parse_json(stored);
  if (!value.is_object()) return std::string(stored);
  metadata_of(value.as_object())["resourceVersion"] = std::to_string(revision);
  return boost::json::serialize(value);
}

boost::json::value parse_json(std::string_view text) {
  boost::json::parse_options options;
  options.max_depth = kMaxObjectDepth;
  return boost::json::parse(text, {}, options);
}

std::optional<boost::json::object> parse_json_object(std::string_view text) {
  try {
    boost::json::value value = parse_json(text);
    if (value.is_object()) return std::move(value.as_object());
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

boost::json::object& metadata_of(boost::json::object& object) {
  auto& metadata = object["metadata"];
  if (!metadata.is_object()) metadata = boost::json::object();
  return metadata.as_object();
}

std::string_view string_field(const boost::json::object& object, std::string_view key) {
  return fields::string_at(object, key);
}

std::string_view meta_string(const boost::json::object& object, std::string_view key) {
  auto it = object.find("metadata");
  if (it == object.end() || !it->value().is_object()) return {};
  return string_field(it->value().as_object(), key);
}

std::int64_t meta_int(const boost::json::object& object, std::string_view key) {
  auto it = object.find("metadata");
  if (it == object.end() || !it->value().is_object()) return 0;
  const boost::json::value* value = it->value().as_object().if_contains(key);
  return value && value->is_int64() ? value->as_int64() : 0;
}

const boost::json::value* value_at(const boost::json::object& object, const std::vector<std::string>& path) {
  if (path.empty()) return nullptr;
  const boost::json::value* value = object.if_contains(path.front());
  for (std::size_t i = 1; value && i < path.size(); ++i)
    value = value->is_object() ? value->as_object().if_contains(path[i]) : nullptr;
  return value;
}

}  // namespace kapi::registry
