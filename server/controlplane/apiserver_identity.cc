// k8s.io/apiserver pkg/server/config.go (the identity's name), k8s.io/component-helpers apimachinery/lease
// controller.go (creating and renewing the Lease), kubernetes pkg/controlplane/apiserver/server.go
// (labelAPIServerHeartbeatFunc) and pkg/controlplane/controller/apiserverleasegc/gc_controller.go.
#include "server/controlplane/apiserver_identity.h"

#include "base/go_time.h"
#include "base/log.h"
#include "base/sleep.h"
#include "base/uuid.h"
#include "server/apierrors/errors.h"
#include "server/registry/json_fields.h"
#include "server/registry/object_meta.h"

#include <boost/json.hpp>
#include <openssl/sha.h>

#include <algorithm>
#include <array>
#include <optional>

namespace kapi::controlplane {
namespace {

namespace json = boost::json;
using Clock = std::chrono::system_clock;

// base32.StdEncoding.WithPadding(base32.NoPadding), lower-cased.
std::string lower_base32(const unsigned char* data, std::size_t size) {
  static constexpr std::string_view kAlphabet = "abcdefghijklmnopqrstuvwxyz234567";
  std::string out;
  unsigned buffer = 0;
  int bits = 0;
  for (std::size_t i = 0; i < size; ++i) {
    buffer = (buffer << 8) | data[i];
    bits += 8;
    while (bits >= 5) {
      out += kAlphabet[(buffer >> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += kAlphabet[(buffer << (5 - bits)) & 31];
  return out;
}

void append_length_prefixed(std::string& out, std::string_view bytes) {
  out += static_cast<char>((bytes.size() >> 8) & 0xff);
  out += static_cast<char>(bytes.size() & 0xff);
  out += bytes;
}

// Sleeps `duration`, noticing shutdown within seconds; false once it is initiated.
asio::awaitable<bool> sleep_until_shutdown(std::chrono::seconds duration, const server::Lifecycle& lifecycle) {
  return base::sleep_unless(duration, [&lifecycle] { return lifecycle.shutdown_initiated(); }, std::chrono::seconds(5));
}

// ensureLease, then renewLease: false when the write failed (and was logged).
asio::awaitable<bool> renew(registry::Store& leases, const std::string& name, const std::string& hostname,
                            const std::string& holder, const IdentityLeaseTiming& timing, base::Logger& logger) {
  const std::string namespace_(kIdentityLeaseNamespace);
  try {
    bool exists = true;
    const std::string any_version;
    try {
      [[maybe_unused]] registry::ReadObject current = co_await leases.get(namespace_, name, any_version);
    } catch (const apierrors::ApiError& error) {
      if (error.status().code != 404) throw;
      exists = false;
    }
    registry::WriteOptions options;
    if (exists) {
      registry::UpdateFunction renewed = [&](const json::object* current) {
        return identity_lease(current, name, hostname, holder, base::micro_time_now(), timing);
      };
      co_await leases.update(namespace_, name, renewed, options);
    } else {
      json::object created = identity_lease(nullptr, name, hostname, holder, base::micro_time_now(), timing);
      co_await leases.create(namespace_, std::move(created), options);
    }
    co_return true;
  } catch (const apierrors::ApiError& error) {
    logger.warning("renewing the identity lease " + namespace_ + "/" + name + " failed, retrying: " +
                   error.status().message);
  } catch (const std::exception& error) {
    logger.warning("renewing the identity lease " + namespace_ + "/" + name + " failed, retrying: " + error.what());
  }
  co_return false;
}

asio::awaitable<void> collect_once(registry::Store& leases, base::Logger& logger) {
  const std::string namespace_(kIdentityLeaseNamespace);
  registry::ListRequest everything;
  registry::ObjectList listed = co_await leases.list(namespace_, everything);
  for (const registry::ReadObject& item : listed.items) {
    const std::optional<json::object> lease = registry::parse_json_object(item.json);
    if (!lease) continue;
    const json::object& metadata = registry::fields::object_or_empty(*lease, "metadata");
    if (registry::fields::string_at(registry::fields::object_or_empty(metadata, "labels"), kIdentityLeaseLabel) !=
        "kube-apiserver")
      continue;
    if (!identity_lease_expired(*lease, Clock::now())) continue;
    const std::string name(registry::meta_string(*lease, "name"));
    try {
      // As kube does, the Lease is read again and deleted only if it is still expired, and only at that version.
      const std::string any_version;
      registry::ReadObject latest_read = co_await leases.get(namespace_, name, any_version);
      const std::optional<json::object> latest = registry::parse_json_object(latest_read.json);
      if (!latest || !identity_lease_expired(*latest, Clock::now())) continue;
      registry::DeleteOptions options;
      options.precondition_resource_version = std::string(registry::meta_string(*latest, "resourceVersion"));
      co_await leases.remove(namespace_, name, std::move(options));
      logger.info("deleted the expired identity lease " + namespace_ + "/" + name);
    } catch (const apierrors::ApiError& error) {
      if (error.status().code != 404 && error.status().code != 409)
        logger.warning("deleting the expired identity lease " + namespace_ + "/" + name + " failed: " +
                       error.status().message);
    }
  }
}

}  // namespace

std::string apiserver_identity(std::string_view hostname) {
  std::string data;
  append_length_prefixed(data, hostname);
  append_length_prefixed(data, "kube-apiserver");
  std::array<unsigned char, SHA256_DIGEST_LENGTH> digest{};
  SHA256(reinterpret_cast<const unsigned char*>(data.data()), data.size(), digest.data());
  return "apiserver-" + lower_base32(digest.data(), 16);
}

json::object identity_lease(const json::object* current, const std::string& name, const std::string& hostname,
                            const std::string& holder, const std::string& renew_time,
                            const IdentityLeaseTiming& timing) {
  json::object lease = current ? *current : json::object{};
  json::object& metadata = registry::metadata_of(lease);
  metadata["name"] = name;
  metadata["namespace"] = kIdentityLeaseNamespace;
  json::value& labels = metadata["labels"];
  if (!labels.is_object()) labels.emplace_object();
  labels.as_object()[kIdentityLeaseLabel] = "kube-apiserver";
  labels.as_object()["kubernetes.io/hostname"] = hostname;
  json::value& spec = lease["spec"];
  if (!spec.is_object()) spec.emplace_object();
  spec.as_object()["holderIdentity"] = holder;
  spec.as_object()["leaseDurationSeconds"] = timing.lease_duration_seconds;
  spec.as_object()["renewTime"] = renew_time;
  return lease;
}

bool identity_lease_expired(const json::object& lease, Clock::time_point now) {
  const json::object& spec = registry::fields::object_or_empty(lease, "spec");
  const json::value* renew_time = spec.if_contains("renewTime");
  const json::value* duration = spec.if_contains("leaseDurationSeconds");
  if (!renew_time || !renew_time->is_string() || !duration || !duration->is_int64()) return true;
  const std::optional<base::UnixTime> renewed = base::parse_rfc3339(renew_time->as_string());
  if (!renewed) return true;
  const auto expiry = Clock::time_point(std::chrono::seconds(renewed->seconds + duration->as_int64())) +
                      std::chrono::duration_cast<Clock::duration>(std::chrono::nanoseconds(renewed->nanos));
  return expiry < now;
}

asio::awaitable<void> maintain_identity_lease(registry::Store& leases, std::string hostname, IdentityLeaseTiming timing,
                                              const server::Lifecycle& lifecycle, base::Logger& logger) {
  const std::string name = apiserver_identity(hostname);
  const std::string holder = name + "_" + base::new_uuid();
  while (!lifecycle.shutdown_initiated()) {
    const bool renewed = co_await renew(leases, name, hostname, holder, timing, logger);
    const std::chrono::seconds pause = renewed ? timing.renew_interval : std::chrono::seconds(1);
    const bool running = co_await sleep_until_shutdown(pause, lifecycle);
    if (!running) break;
  }
}

asio::awaitable<void> collect_expired_identity_leases(registry::Store& leases, IdentityLeaseTiming timing,
                                                      const server::Lifecycle& lifecycle, base::Logger& logger) {
  for (bool running = true; running;) {
    try {
      co_await collect_once(leases, logger);
    } catch (const apierrors::ApiError& error) {
      logger.warning("listing identity leases failed: " + error.status().message);
    }
    running = co_await sleep_until_shutdown(timing.gc_period, lifecycle);
  }
}

}  // namespace kapi::controlplane
