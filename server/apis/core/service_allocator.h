#pragma once
// Service cluster IPs and node ports (kube's ipallocator and portallocator with the service REST's alloc.go):
// allocated on create and update, released when the service goes.
//
// Both ranges are stored (range_allocation.h), so every server on one store hands out from the same bitmaps; the
// repair (service_repair.h) puts right what a server that died between allocating and storing left behind.
#include "server/apis/core/range_allocation.h"

#include <asio/awaitable.hpp>
#include <boost/json/object.hpp>

#include <cstdint>
#include <optional>
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

// The values a write took from the ranges, given back if the write fails (kube's allocation transaction's Revert),
// and those the stored service held that the new one no longer does, given back once it is stored (Commit).
struct ServiceClaims {
  std::vector<std::uint64_t> taken_ips, taken_ports;
  std::vector<std::uint64_t> freed_ips, freed_ports;
};

// kube's service REST allocator (pkg/registry/core/service/storage/alloc.go) over the two stored ranges.
class ServiceAllocator {
 public:
  // The ranges live under `key_root` + "/ranges/serviceips" in `ips` and "/ranges/servicenodeports" in `ports`
  // (one store, or kube's raw storage of each: serviceipallocations, servicenodeportallocations).
  ServiceAllocator(ServiceNetwork network, storage::Interface& ips, storage::Interface& ports,
                   const std::string& key_root);
  ServiceAllocator(ServiceNetwork network, storage::Interface& storage, const std::string& key_root)
      : ServiceAllocator(network, storage, storage, key_root) {}

  const ServiceNetwork& network() const { return network_; }
  StoredRange& cluster_ips() { return ips_; }
  StoredRange& node_ports() { return ports_; }

  // Fills what `service` needs and lacks (spec.clusterIP and clusterIPs, ports[*].nodePort, healthCheckNodePort)
  // and takes what it names that `old` (the stored service, on update) did not hold. Throws ApiError as kube's
  // service REST does: 422 for a value outside the range or held by another service, 500 when a range is full or
  // cannot be written. A dry run checks and picks without taking anything.
  asio::awaitable<ServiceClaims> allocate(boost::json::object& service, const boost::json::object* old, bool dry_run);
  // The write ended: stored, the values the old service no longer holds are freed; not, those it took are.
  asio::awaitable<void> finish(ServiceClaims claims, bool stored);
  // The service is gone from storage (kube's afterDelete): its values are free.
  asio::awaitable<void> release(const boost::json::object& service);

  // The offsets in each range that a service holds (its values outside the ranges left out), as the repair and
  // release read them.
  std::vector<std::uint64_t> ip_offsets(const boost::json::object& service) const;
  std::vector<std::uint64_t> port_offsets(const boost::json::object& service) const;

 private:
  ServiceNetwork network_;
  StoredRange ips_;
  StoredRange ports_;
};

}  // namespace kapi::apis::core
