#include "server/apis/core/lease_endpoint_reconciler.h"

#include "base/log.h"
#include "base/sleep.h"
#include "server/apierrors/errors.h"
#include "server/apis/discovery/discovery.h"
#include "server/registry/json_fields.h"
#include "server/registry/object_meta.h"

#include <boost/json.hpp>

#include <algorithm>
#include <set>

namespace kapi::apis::core {

namespace json = boost::json;
using namespace registry::fields;
using namespace std::chrono_literals;

namespace {

constexpr std::string_view kSkipMirrorLabel = "endpointslice.kubernetes.io/skip-mirror";

// The first address of the first subset: what ListLeases reads from each lease.
std::string leased_ip(const json::object& lease) {
  const json::array* subsets = array_at(lease, "subsets");
  if (!subsets || subsets->empty() || !(*subsets)[0].is_object()) return {};
  const json::array* addresses = array_at((*subsets)[0].as_object(), "addresses");
  if (!addresses || addresses->empty() || !(*addresses)[0].is_object()) return {};
  return std::string(string_at((*addresses)[0].as_object(), "ip"));
}

// checkEndpointSubsetFormatWithLease's ipsCorrect: the addresses are exactly `ips`, each once.
bool addresses_are(const json::object& subset, const std::vector<std::string>& ips) {
  const json::array* addresses = array_at(subset, "addresses");
  const std::size_t count = addresses ? addresses->size() : 0;
  if (count != ips.size()) return false;
  std::set<std::string_view> expected(ips.begin(), ips.end()), seen;
  for (std::size_t i = 0; i < count; ++i) {
    if (!(*addresses)[i].is_object()) return false;
    const std::string_view ip = string_at((*addresses)[i].as_object(), "ip");
    if (!expected.contains(ip) || !seen.insert(ip).second) return false;
  }
  return true;
}

}  // namespace

asio::awaitable<std::vector<std::string>> MasterLeases::list() {
  storage::ListOptions options;
  auto pending = storage_.list(prefix_, std::move(options));
  storage::ListResult listed = co_await std::move(pending);
  std::vector<std::string> ips;
  for (const storage::KeyValue& item : listed.items) {
    json::value lease;
    try {
      lease = registry::parse_json(item.value);
    } catch (const std::exception&) {
      continue;  // not an Endpoints: not a lease kube would read either
    }
    if (!lease.is_object()) continue;
    if (std::string ip = leased_ip(lease.as_object()); !ip.empty()) ips.push_back(std::move(ip));
  }
  co_return ips;
}

json::object master_lease(const json::object* current, const std::string& ip) {
  json::object lease = current ? *current : json::object{{"kind", "Endpoints"}, {"apiVersion", "v1"}};
  json::value& metadata = lease["metadata"];
  if (!metadata.is_object()) metadata = json::object{{"creationTimestamp", nullptr}};
  json::value& generation = metadata.as_object()["generation"];
  generation = (generation.is_int64() ? generation.as_int64() : 0) + 1;
  lease["subsets"] = json::array{json::object{{"addresses", json::array{json::object{{"ip", ip}}}}}};
  return lease;
}

asio::awaitable<void> MasterLeases::update(const std::string& ip) {
  storage::TryUpdate rewrite = [&ip](const storage::KeyValue* current) -> storage::TryUpdate::Result {
    std::optional<json::object> existing;
    if (current) {
      try {
        if (json::value parsed = registry::parse_json(current->value); parsed.is_object())
          existing = std::move(parsed.as_object());
      } catch (const std::exception&) {
        // a lease kube could not decode either: written anew
      }
    }
    return json::serialize(master_lease(existing ? &*existing : nullptr, ip));
  };
  storage::WriteOptions options;
  options.ttl = ttl_;
  auto pending = storage_.guaranteed_update(prefix_ + ip, true, {}, std::move(rewrite), options);
  co_await std::move(pending);
}

asio::awaitable<void> MasterLeases::remove(const std::string& ip) {
  try {
    auto pending = storage_.remove(prefix_ + ip, {});
    co_await std::move(pending);
  } catch (const storage::StorageError& error) {
    if (error.code() != storage::ErrorCode::KeyNotFound) throw;
  }
}

std::optional<json::object> reconciled_endpoints(const json::object* current, std::vector<std::string> ips,
                                                 const json::array& ports, bool reconcile_ports) {
  json::object endpoints = current ? *current
                                   : json::object{{"apiVersion", "v1"},
                                                  {"kind", "Endpoints"},
                                                  {"metadata", json::object{{"name", "kubernetes"},
                                                                            {"namespace", "default"}}}};
  // setSkipMirrorTrue: the EndpointSlice mirroring controller leaves these alone; the reconciler writes the slice.
  json::value& labels = registry::metadata_of(endpoints)["labels"];
  if (!labels.is_object()) labels = json::object();
  json::value& skip_mirror = labels.as_object()[kSkipMirrorLabel];
  const bool skip_mirror_changed = !(skip_mirror.is_string() && skip_mirror.as_string() == "true");
  skip_mirror = "true";

  json::value& subsets = endpoints["subsets"];
  const bool format_correct = subsets.is_array() && subsets.as_array().size() == 1 && subsets.as_array()[0].is_object();
  if (!format_correct) subsets = json::array{json::object{{"addresses", json::array()}, {"ports", ports}}};
  json::object& subset = subsets.as_array()[0].as_object();
  const json::array* current_ports = array_at(subset, "ports");
  const bool ports_correct = format_correct && (!reconcile_ports || (current_ports && *current_ports == ports));
  const bool ips_correct = format_correct && addresses_are(subset, ips);
  if (!skip_mirror_changed && ips_correct && ports_correct) return std::nullopt;

  if (!ips_correct) {
    // RepackSubsets orders the addresses by IP, as bytes.
    std::sort(ips.begin(), ips.end());
    ips.erase(std::unique(ips.begin(), ips.end()), ips.end());
    json::array addresses;
    for (const std::string& ip : ips) addresses.push_back(json::object{{"ip", ip}});
    subset["addresses"] = std::move(addresses);
  }
  if (!ports_correct) subset["ports"] = ports;
  return endpoints;
}

LeaseEndpointReconciler::LeaseEndpointReconciler(MasterLeases leases, registry::Store& endpoints,
                                                 registry::Store& endpoint_slices,
                                                 LeaseEndpointReconcilerOptions options, base::Logger& logger)
    : leases_(std::move(leases)),
      endpoints_(endpoints),
      endpoint_slices_(endpoint_slices),
      options_(std::move(options)),
      logger_(logger),
      ports_{json::object{{"name", "https"}, {"port", options_.port}, {"protocol", "TCP"}}} {}

asio::awaitable<void> LeaseEndpointReconciler::reconcile(bool reconcile_ports) {
  auto listing = leases_.list();
  std::vector<std::string> ips = co_await std::move(listing);
  // This server's lease was just refreshed (or removed, on the way out): none at all means storage is not what
  // it seems, and kube refuses to erase every endpoint on that evidence.
  if (ips.empty() && !stopped_)
    throw std::runtime_error("no master IPs were listed in storage, refusing to erase all endpoints for the "
                             "kubernetes service");
  if (ips.empty()) co_return;

  std::optional<json::object> written;
  registry::UpdateFunction put_right = [&](const json::object* current) {
    written = reconciled_endpoints(current, ips, ports_, reconcile_ports);
    if (written) return *written;
    written = *current;
    return *current;  // unchanged: nothing is written
  };
  registry::WriteOptions options;
  bool missing = false;
  try {
    auto pending = endpoints_.update("default", "kubernetes", put_right, options);
    co_await std::move(pending);
  } catch (const apierrors::ApiError& error) {
    if (error.status().code != 404) throw;
    missing = true;
  }
  if (missing) {
    written = reconciled_endpoints(nullptr, ips, ports_, reconcile_ports);
    auto pending = endpoints_.create("default", *written, options);
    co_await std::move(pending);
  }
  auto slice = ensure_kubernetes_endpoint_slice(endpoint_slices_, *written);
  co_await std::move(slice);
}

asio::awaitable<void> LeaseEndpointReconciler::reconcile_endpoints() {
  if (stopped_) co_return;
  // Refreshed first, whatever happens next, so that some server at least lists this one.
  auto refresh = leases_.update(options_.ip);
  co_await std::move(refresh);
  auto pass = reconcile(!settled_);
  co_await std::move(pass);
  settled_ = true;
}

asio::awaitable<std::chrono::seconds> LeaseEndpointReconciler::pass() {
  std::chrono::seconds next = options_.interval;
  if (stopped_) co_return next;
  reconciling_ = true;
  try {
    auto pass = reconcile_endpoints();
    co_await std::move(pass);
  } catch (const apierrors::ApiError& error) {
    const int code = error.status().code;
    // 409: another server wrote the Endpoints meanwhile; the next pass reads what it wrote.
    if (code != 409) logger_.warning("reconciling the kubernetes endpoints failed: " + error.status().message);
    if (code == 422) settled_ = true;
    else next = 1s;
  } catch (const std::exception& error) {
    logger_.warning(std::string("reconciling the kubernetes endpoints failed: ") + error.what());
    next = 1s;
  }
  reconciling_ = false;
  co_return next;
}

asio::awaitable<void> LeaseEndpointReconciler::run(const server::Lifecycle& lifecycle, std::chrono::seconds first) {
  auto stopping = [&] { return lifecycle.shutdown_initiated() || stopped_.load(); };
  for (std::chrono::seconds next = first; !stopping();) {
    auto until_next = base::sleep_unless(next, stopping);
    co_await std::move(until_next);
    if (stopping()) break;
    auto passing = pass();
    next = co_await std::move(passing);
  }
}

asio::awaitable<void> LeaseEndpointReconciler::remove_endpoints() {
  stopped_ = true;
  while (reconciling_) co_await base::sleep_for(10ms);  // a pass under way finishes first (kube's lock)
  try {
    auto removal = leases_.remove(options_.ip);
    co_await std::move(removal);
    auto pass = reconcile(true);
    co_await std::move(pass);
  } catch (const std::exception& error) {
    logger_.warning(std::string("removing this server from the kubernetes endpoints failed: ") + error.what());
  }
}

}  // namespace kapi::apis::core
