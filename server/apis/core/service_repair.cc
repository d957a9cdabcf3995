#include "server/apis/core/service_repair.h"

#include "base/log.h"
#include "base/sleep.h"
#include "server/apierrors/errors.h"
#include "server/registry/json_fields.h"
#include "server/registry/object_meta.h"

#include <boost/json.hpp>

#include <functional>
#include <set>

namespace kapi::apis::core {

namespace json = boost::json;
using namespace registry::fields;

// One range as a pass repairs it: what each service holds in it ("10.0.0.7" at offset 6, or "40000" outside the
// range), the leaks seen so far, and the words of its log lines.
struct ServiceAllocationRepair::Range {
  struct Held {
    std::string value;
    std::optional<std::uint64_t> offset;  // none: outside the range
  };
  StoredRange& stored;
  std::map<std::uint64_t, int>& leaks;
  std::function<std::vector<Held>(const json::object& service)> held_by;
  std::function<std::string(std::uint64_t offset)> value_at;
  std::string what;  // "cluster IP"
};

asio::awaitable<void> ServiceAllocationRepair::run_once() {
  const ServiceNetwork& network = allocator_.network();
  Range ips{allocator_.cluster_ips(), ip_leaks_,
            [&](const json::object& service) {
              std::vector<Range::Held> held;
              if (!needs_cluster_ip(service) || is_headless(service)) return held;
              const json::object* spec = object_at(service, "spec");
              std::string ip(string_at(spec, "clusterIP"));
              if (ip.empty()) return held;
              std::vector<std::uint64_t> offsets = allocator_.ip_offsets(service);
              held.push_back({ip, offsets.empty() ? std::nullopt : std::optional(offsets.front())});
              return held;
            },
            [&](std::uint64_t offset) { return network.cluster_ips.address(offset + 1); }, "cluster IP"};
  Range ports{allocator_.node_ports(), port_leaks_,
              [&](const json::object& service) {
                std::vector<Range::Held> held;
                std::set<std::int64_t> seen;  // one node port for TCP and UDP is held once
                auto note = [&](std::int64_t port) {
                  if (port == 0 || !seen.insert(port).second) return;
                  std::optional<std::uint64_t> offset;
                  if (network.node_ports.contains(port))
                    offset = static_cast<std::uint64_t>(port - network.node_ports.base);
                  held.push_back({std::to_string(port), offset});
                };
                const json::object* spec = object_at(service, "spec");
                for_each_object(spec, "ports", [&](const json::object& port, std::size_t) {
                  note(int_or_zero(&port, "nodePort"));
                });
                note(int_or_zero(spec, "healthCheckNodePort"));
                return held;
              },
              [&](std::uint64_t offset) { return std::to_string(network.node_ports.base + offset); }, "node port"};

  // The ranges are read before the services are listed: a value allocated after the read changes the range, so
  // the write below fails rather than free it.
  RangeSnapshot ip_snapshot = co_await ips.stored.get();
  RangeSnapshot port_snapshot = co_await ports.stored.get();
  registry::ListRequest request;  // a consistent list, as kube's repair reads
  auto listing = services_.list("", std::move(request));
  registry::ObjectList listed = co_await std::move(listing);
  std::vector<json::object> services;
  services.reserve(listed.items.size());
  for (const registry::ReadObject& item : listed.items)
    if (auto service = registry::parse_json_object(item.json)) services.push_back(std::move(*service));
  auto repairing_ips = repair(ips, std::move(ip_snapshot), services);
  co_await std::move(repairing_ips);
  auto repairing_ports = repair(ports, std::move(port_snapshot), services);
  co_await std::move(repairing_ports);
}

asio::awaitable<void> ServiceAllocationRepair::repair(const Range& range, RangeSnapshot snapshot,
                                                      const std::vector<json::object>& services) {
  if (snapshot.revision != 0 && snapshot.range != range.stored.options().range) {
    logger_.warning("the stored " + range.what + " range " + snapshot.range + " is not the configured " +
                    range.stored.options().range + ": rebuilt from the services");
  }
  const AllocationBitmap stored = range.stored.bitmap_of(snapshot);
  AllocationBitmap rebuilt = range.stored.empty();
  for (const json::object& service : services) {
    const std::string name = std::string(registry::meta_string(service, "namespace")) + "/" +
                             std::string(registry::meta_string(service, "name"));
    for (const Range::Held& held : range.held_by(service)) {
      if (!held.offset) {
        logger_.warning("the " + range.what + " " + held.value + " of service " + name +
                        " is not within the configured range " + range.stored.options().range +
                        "; please recreate the service");
        continue;
      }
      if (!rebuilt.allocate(*held.offset)) {
        logger_.warning("the " + range.what + " " + held.value + " of service " + name +
                        " was assigned to multiple services; please recreate the service");
        continue;
      }
      range.leaks.erase(*held.offset);
      if (!stored.has(*held.offset)) {
        logger_.warning("the " + range.what + " " + held.value + " of service " + name +
                        " is not allocated; repairing");
      }
    }
  }
  // Held in the range, by no service: kept a few passes (its service may be on its way to storage), then freed.
  stored.for_each([&](std::uint64_t offset) {
    if (rebuilt.has(offset)) return;
    auto leak = range.leaks.try_emplace(offset, kPassesBeforeLeakCleanup - 1).first;
    if (leak->second > 0) {
      --leak->second;
      rebuilt.allocate(offset);
      return;
    }
    logger_.warning("the " + range.what + " " + range.value_at(offset) + " appears to have leaked: cleaning up");
    range.leaks.erase(leak);
  });
  std::erase_if(range.leaks, [&](const auto& leak) { return !stored.has(leak.first); });
  // Another server's write since the read (an allocation, its own repair) fails this one; the next pass retries.
  snapshot.range = range.stored.options().range;
  snapshot.data = rebuilt.snapshot();
  co_await range.stored.create_or_update(std::move(snapshot));
}

asio::awaitable<void> ServiceAllocationRepair::run(std::chrono::milliseconds interval,
                                                   std::shared_ptr<const std::atomic<bool>> stopping) {
  while (!stopping->load()) {
    auto sleeping = base::sleep_unless(interval, [stopping] { return stopping->load(); }, std::chrono::seconds(1));
    if (!co_await std::move(sleeping)) break;
    try {
      co_await run_once();
    } catch (const apierrors::ApiError& error) {
      logger_.warning("repairing the service IP and node port ranges: " + error.status().message);
    } catch (const std::exception& error) {
      logger_.warning(std::string("repairing the service IP and node port ranges: ") + error.what());
    }
  }
}

}  // namespace kapi::apis::core
