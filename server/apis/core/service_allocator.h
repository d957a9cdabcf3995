#pragma once
// Service cluster IPs and node ports (kube's ipallocator and portallocator with the service REST's alloc.go):
// allocated on create and update, released when the service goes.
//
// The state is derived from the stored services rather than kept in storage of its own: a tracker lists the
// services at start and follows their watch (service_tracker.h), confirming what each stored service holds
// and releasing what a deleted or changed one no longer does. A value handed out by a create or update is
// reserved, held against every other service until the tracker sees it stored or the reservation lapses (a
// request that failed after allocating, a dry run): nothing is handed out twice, whatever the concurrency.
#include <boost/json/object.hpp>

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace kapi::apis::core {

// An IPv4 range in CIDR form (--service-cluster-ip-range).
struct Ipv4Cidr {
  std::uint32_t network = 0;  // host byte order
  int prefix_length = 32;

  std::uint64_t size() const { return std::uint64_t{1} << (32 - prefix_length); }
  std::string text() const;                          // "10.0.0.0/24"
  std::string address(std::uint64_t offset) const;  // network + offset, dotted
  // The address's offset from the network address; std::nullopt when it is not an IPv4 address in the range.
  std::optional<std::uint64_t> offset_of(std::string_view address) const;
};
// "10.0.0.0/24"; std::nullopt when not an IPv4 CIDR with a prefix of 12 to 30 bits (kube's bounds for a range).
std::optional<Ipv4Cidr> parse_service_cidr(std::string_view text);

// A port range (--service-node-port-range): "30000-32767", "30000+2767" or one port.
struct PortRange {
  int base = 30000;
  int size = 2768;
  std::string text() const;  // "30000-32767"
  bool contains(std::int64_t port) const { return port >= base && port < base + size; }
};
std::optional<PortRange> parse_port_range(std::string_view text);

struct ServiceNetwork {
  Ipv4Cidr cluster_ips = *parse_service_cidr("10.0.0.0/24");
  PortRange node_ports;
  // The `kubernetes` service's targetPort: the secure port.
  int secure_port = 6443;
  // The IP the `kubernetes` endpoints lead to (--advertise-address, or the host's address); "" writes none.
  std::string advertise_address;

  // The range's first address, the `kubernetes` service's clusterIP: "10.0.0.1".
  std::string first_address() const { return cluster_ips.address(1); }
};

// What a service needs, as kube's service REST decides it.
bool needs_cluster_ip(const boost::json::object& service);  // not ExternalName
bool is_headless(const boost::json::object& service);       // clusterIP None
bool needs_node_ports(const boost::json::object& service);  // NodePort, or LoadBalancer allocating node ports
bool needs_health_check_node_port(const boost::json::object& service);  // LoadBalancer with the Local policy

// One range of values (offsets 0..size-1), allocated at random from the upper band first and from the lower
// band, kept for static choices, only when the upper one is full (kube's randomScanStrategyWithOffset).
// Not synchronised: ServiceAllocator guards it.
class RangeAllocator {
 public:
  using Clock = std::chrono::steady_clock;

  RangeAllocator(std::uint64_t size, std::uint64_t static_band);

  // Holds `offset` for `owner` until `expires` unless confirmed first; false when someone else holds it.
  bool reserve(std::uint64_t offset, std::string_view owner, Clock::time_point expires);
  std::optional<std::uint64_t> allocate_next(std::string_view owner, Clock::time_point expires, std::mt19937_64& random);
  // Gives back an unconfirmed reservation (a request that failed part-way).
  void release_reservation(std::uint64_t offset, std::string_view owner);
  // `owner` is stored holding exactly `offsets`: they become confirmed, its other confirmed ones are freed.
  void confirm(std::string_view owner, const std::set<std::uint64_t>& offsets);
  void forget(std::string_view owner);
  void drop_confirmed();
  std::size_t used(Clock::time_point now) const;

 private:
  struct Holder {
    std::string owner;
    bool confirmed = false;
    Clock::time_point expires;
  };
  bool free_at(std::uint64_t offset, Clock::time_point now);

  std::uint64_t size_;
  std::uint64_t static_band_;
  std::map<std::uint64_t, Holder> held_;
};

class ServiceAllocator {
 public:
  using Clock = RangeAllocator::Clock;

  explicit ServiceAllocator(ServiceNetwork network, Clock::duration reservation_ttl = std::chrono::minutes(2));

  const ServiceNetwork& network() const { return network_; }

  // Fills what `service` needs and lacks (spec.clusterIP and clusterIPs, ports[*].nodePort,
  // healthCheckNodePort) and reserves what it names, for its metadata.uid (on update the values it already
  // has are its own, so reserving them again succeeds). Throws ApiError as kube's service REST does: 422 for a
  // value outside the range or held by another service, 500 when a range is full, 503 before the first sync.
  void allocate(boost::json::object& service);

  // The tracker's account of storage: every stored service (resync), one stored or changed (observe), one
  // deleted (forget); ready once the first resync is in.
  void resync(const std::vector<boost::json::object>& services);
  void observe(const boost::json::object& service);
  void forget(std::string_view uid);
  bool ready() const;

  // Values held (confirmed or reserved), for tests and diagnostics.
  std::size_t ips_in_use() const;
  std::size_t ports_in_use() const;

 private:
  void observe_locked(const boost::json::object& service);

  ServiceNetwork network_;
  Clock::duration reservation_ttl_;
  mutable std::mutex mutex_;
  RangeAllocator ips_;
  RangeAllocator ports_;
  std::mt19937_64 random_;
  bool ready_ = false;
};

}  // namespace kapi::apis::core
