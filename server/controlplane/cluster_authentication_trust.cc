#include "server/controlplane/cluster_authentication_trust.h"

#include "base/log.h"
#include "base/sleep.h"
#include "server/apierrors/errors.h"
#include "server/pki/openssl_handles.h"
#include "server/pki/pem_io.h"
#include "server/registry/json_fields.h"
#include "server/registry/object_meta.h"

#include <boost/json.hpp>
#include <openssl/err.h>
#include <openssl/pem.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <memory>
#include <stdexcept>

namespace kapi::controlplane {
namespace {

namespace json = boost::json;
using Certificate = pki::X509Ptr;
using registry::fields::string_at;

std::vector<std::string> parse_list(const json::object* data, std::string_view key) {
  std::vector<std::string> out;
  const json::value* text = data ? data->if_contains(key) : nullptr;
  if (!text || !text->is_string() || text->as_string().empty()) return out;
  boost::system::error_code error;
  json::value parsed = json::parse(text->as_string(), error);
  if (parsed.is_null() && !error) return out;  // Go's json.Marshal of a nil slice
  if (error || !parsed.is_array()) throw std::runtime_error(std::string(key) + " is not a JSON list of strings");
  for (const auto& item : parsed.as_array()) {
    if (!item.is_string()) throw std::runtime_error(std::string(key) + " is not a JSON list of strings");
    out.emplace_back(item.as_string());
  }
  return out;
}

// kube's combineUniqueStringSlices: the existing values, then ours, each once.
std::vector<std::string> joined(std::vector<std::string> existing, const std::vector<std::string>& ours) {
  existing.insert(existing.end(), ours.begin(), ours.end());
  std::vector<std::string> out;
  for (auto& value : existing)
    if (std::find(out.begin(), out.end(), value) == out.end()) out.push_back(std::move(value));
  return out;
}

std::vector<Certificate> parse_certificates(std::string_view pem, std::string_view what) {
  std::vector<Certificate> out;
  if (pem.empty()) return out;
  pki::BioPtr input(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  while (X509* certificate = PEM_read_bio_X509(input.get(), nullptr, nullptr, nullptr)) out.emplace_back(certificate);
  ERR_clear_error();  // the end of the input is queued as an error
  if (out.empty()) throw std::runtime_error(std::string(what) + " holds no PEM certificate");
  return out;
}

std::string der_of(X509* certificate) {
  unsigned char* der = nullptr;
  int length = i2d_X509(certificate, &der);
  if (length < 0) return "";
  std::string out(reinterpret_cast<const char*>(der), static_cast<std::size_t>(length));
  OPENSSL_free(der);
  return out;
}

// kube's combineCertLists: existing then ours, without certificates expired for over five minutes, each once;
// "" when none is left.
std::string joined_bundle(std::string_view existing, std::string_view ours, std::string_view key) {
  std::vector<Certificate> certificates = parse_certificates(existing, key);
  for (auto& certificate : parse_certificates(ours, key)) certificates.push_back(std::move(certificate));
  std::time_t five_minutes_ago = std::time(nullptr) - 5 * 60;
  std::vector<std::string> seen;
  std::string bundle;
  for (const auto& certificate : certificates) {
    if (X509_cmp_time(X509_get0_notAfter(certificate.get()), &five_minutes_ago) <= 0) continue;
    std::string der = der_of(certificate.get());
    if (std::find(seen.begin(), seen.end(), der) != seen.end()) continue;
    seen.push_back(std::move(der));
    bundle += pki::certificate_to_pem(certificate.get());
  }
  return bundle;
}

std::string json_list(const std::vector<std::string>& values) {
  json::array array;
  for (const auto& value : values) array.emplace_back(value);
  return json::serialize(array);
}

// Reads the ConfigMap and writes it when it should hold more; false when it could not (to retry soon).
asio::awaitable<bool> sync(registry::Store& configmaps, const ClusterAuthenticationInfo& ours, base::Logger& logger) {
  const std::string namespace_(kAuthenticationConfigMapNamespace), name(kAuthenticationConfigMapName);
  try {
    std::optional<json::object> current;
    try {
      registry::ReadObject read = co_await configmaps.get(namespace_, name, "");
      current = registry::parse_json_object(read.json);
    } catch (const apierrors::ApiError& error) {
      if (error.status().code != 404) throw;
    }
    auto data_of = [](const json::object& object) -> const json::object* {
      const json::value* data = object.if_contains("data");
      return data && data->is_object() ? &data->as_object() : nullptr;
    };
    const json::object* existing = current ? data_of(*current) : nullptr;
    json::object wanted = authentication_configmap_data(ours, existing);
    if (existing && *existing == wanted) co_return true;
    registry::WriteOptions options;
    if (current) {
      // Merged again with what is stored at the time of the write, in case another server wrote meanwhile.
      registry::UpdateFunction merge = [&ours, &data_of](const json::object* stored) {
        json::object updated = stored ? *stored : json::object{};
        updated["data"] = authentication_configmap_data(ours, stored ? data_of(*stored) : nullptr);
        return updated;
      };
      co_await configmaps.update(namespace_, name, merge, options);
    } else {
      json::object created{{"metadata", json::object{{"name", name}, {"namespace", namespace_}}}};
      created["data"] = std::move(wanted);
      co_await configmaps.create(namespace_, std::move(created), options);
    }
    logger.info("wrote authentication info to " + namespace_ + " configmaps/" + name);
    co_return true;
  } catch (const apierrors::ApiError& error) {
    logger.warning("writing " + namespace_ + " configmaps/" + name + " failed, retrying: " + error.status().message);
  } catch (const std::exception& error) {
    logger.warning("writing " + namespace_ + " configmaps/" + name + " failed, retrying: " + error.what());
  }
  co_return false;
}

}  // namespace

json::object authentication_configmap_data(const ClusterAuthenticationInfo& ours, const json::object* existing) {
  json::object data;
  // kube reads what is there before it joins ours: a broken list or bundle fails the whole sync.
  const std::string client_ca = joined_bundle(string_at(existing, "client-ca-file"), ours.client_ca, "client-ca-file");
  if (!client_ca.empty()) data["client-ca-file"] = client_ca;
  auto username = joined(parse_list(existing, "requestheader-username-headers"), ours.request_header_username_headers);
  auto uid = joined(parse_list(existing, "requestheader-uid-headers"), ours.request_header_uid_headers);
  auto group = joined(parse_list(existing, "requestheader-group-headers"), ours.request_header_group_headers);
  auto extra = joined(parse_list(existing, "requestheader-extra-headers-prefix"), ours.request_header_extra_header_prefixes);
  auto allowed = joined(parse_list(existing, "requestheader-allowed-names"), ours.request_header_allowed_names);
  const std::string request_header_ca = joined_bundle(string_at(existing, "requestheader-client-ca-file"),
                                                      ours.request_header_ca, "requestheader-client-ca-file");
  if (request_header_ca.empty()) return data;  // the headers mean nothing without a CA to trust the proxy by
  data["requestheader-username-headers"] = json_list(username);
  data["requestheader-uid-headers"] = json_list(uid);
  data["requestheader-group-headers"] = json_list(group);
  data["requestheader-extra-headers-prefix"] = json_list(extra);
  data["requestheader-client-ca-file"] = request_header_ca;
  data["requestheader-allowed-names"] = json_list(allowed);
  return data;
}

asio::awaitable<void> maintain_authentication_configmap(registry::Store& configmaps, ClusterAuthenticationInfo ours,
                                                        const server::Lifecycle& lifecycle, base::Logger& logger) {
  while (!lifecycle.shutdown_initiated()) {
    const bool synced = co_await sync(configmaps, ours, logger);
    co_await base::sleep_for(synced ? std::chrono::minutes(1) : std::chrono::seconds(1));
  }
}

}  // namespace kapi::controlplane
