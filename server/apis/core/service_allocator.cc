#include "server/apis/core/service_allocator.h"

#include "server/apierrors/errors.h"
#include "server/registry/json_fields.h"
#include "server/registry/object_meta.h"

#include <arpa/inet.h>

#include <algorithm>
#include <charconv>
#include <exception>
#include <set>

namespace kapi::apis::core {
namespace {

using namespace registry::fields;
using apierrors::ApiError;

std::optional<int> parse_int(std::string_view text) {
  int value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
  return value;
}

// calculateRangeOffset of kube's ipallocator (min 16, max 256, step 16) and portallocator (min 16, max 128,
// step 32): the lower band kept for values users choose.
std::uint64_t static_band(std::uint64_t range_size, std::uint64_t max, std::uint64_t step) {
  constexpr std::uint64_t kMin = 16;
  if (range_size <= kMin) return 0;
  return std::clamp(range_size / step, kMin, max);
}

// The offsets of the IP range proper: the network and broadcast addresses are never handed out.
std::uint64_t ip_range_size(const Ipv4Cidr& cidr) { return cidr.size() - 2; }

std::string cluster_ip_of(const json::object* spec) {
  if (const json::array* ips = spec ? array_at(*spec, "clusterIPs") : nullptr; ips && !ips->empty() && (*ips)[0].is_string())
    return std::string((*ips)[0].as_string());
  return std::string(string_at(spec, "clusterIP"));
}

[[noreturn]] void throw_invalid(const json::object& service, validation::FieldError error) {
  validation::ErrorList errors{std::move(error)};
  throw ApiError(apierrors::invalid("", "Service", registry::meta_string(service, "name"), errors));
}

}  // namespace

std::string Ipv4Cidr::text() const { return address(0) + "/" + std::to_string(prefix_length); }

std::string Ipv4Cidr::address(std::uint64_t offset) const {
  in_addr raw{};
  raw.s_addr = htonl(static_cast<std::uint32_t>(network + offset));
  char text[INET_ADDRSTRLEN] = {};
  inet_ntop(AF_INET, &raw, text, sizeof text);
  return text;
}

std::optional<std::uint64_t> Ipv4Cidr::offset_of(std::string_view address) const {
  in_addr raw{};
  if (inet_pton(AF_INET, std::string(address).c_str(), &raw) != 1) return std::nullopt;
  const std::uint32_t host = ntohl(raw.s_addr);
  const std::uint64_t offset = static_cast<std::uint64_t>(host) - network;
  if (host < network || offset >= size()) return std::nullopt;
  return offset;
}

std::optional<Ipv4Cidr> parse_service_cidr(std::string_view text) {
  const auto slash = text.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  auto prefix = parse_int(text.substr(slash + 1));
  if (!prefix || *prefix < 12 || *prefix > 30) return std::nullopt;
  in_addr raw{};
  if (inet_pton(AF_INET, std::string(text.substr(0, slash)).c_str(), &raw) != 1) return std::nullopt;
  Ipv4Cidr cidr;
  cidr.prefix_length = *prefix;
  const std::uint32_t mask = ~std::uint32_t{0} << (32 - *prefix);
  cidr.network = ntohl(raw.s_addr) & mask;  // net.ParseCIDR masks the host bits away
  return cidr;
}

std::string PortRange::text() const { return std::to_string(base) + "-" + std::to_string(base + size - 1); }

std::optional<PortRange> parse_port_range(std::string_view text) {
  auto valid = [](int port) { return port >= 1 && port <= 65535; };
  PortRange range;
  if (auto dash = text.find('-'); dash != std::string_view::npos) {
    auto low = parse_int(text.substr(0, dash));
    auto high = parse_int(text.substr(dash + 1));
    if (!low || !high || !valid(*low) || !valid(*high) || *high < *low) return std::nullopt;
    range.base = *low;
    range.size = *high - *low + 1;
  } else if (auto plus = text.find('+'); plus != std::string_view::npos) {
    auto low = parse_int(text.substr(0, plus));
    auto extra = parse_int(text.substr(plus + 1));
    if (!low || !extra || !valid(*low) || *extra < 0 || !valid(*low + *extra)) return std::nullopt;
    range.base = *low;
    range.size = *extra + 1;
  } else {
    auto port = parse_int(text);
    if (!port || !valid(*port)) return std::nullopt;
    range.base = *port;
    range.size = 1;
  }
  return range;
}

bool needs_cluster_ip(const json::object& service) {
  return string_at(object_at(service, "spec"), "type") != "ExternalName";
}

bool is_headless(const json::object& service) { return cluster_ip_of(object_at(service, "spec")) == "None"; }

bool needs_node_ports(const json::object& service) {
  const json::object* spec = object_at(service, "spec");
  const std::string_view type = string_at(spec, "type");
  if (type == "NodePort") return true;
  if (type != "LoadBalancer") return false;
  auto it = spec->find("allocateLoadBalancerNodePorts");
  return it == spec->end() || !it->value().is_bool() || it->value().as_bool();
}

bool needs_health_check_node_port(const json::object& service) {
  const json::object* spec = object_at(service, "spec");
  return string_at(spec, "type") == "LoadBalancer" && string_at(spec, "externalTrafficPolicy") == "Local";
}

// ServiceAllocator.

ServiceAllocator::ServiceAllocator(ServiceNetwork network, storage::Interface& ips, storage::Interface& ports,
                                   const std::string& key_root)
    : network_(network),
      ips_(ips, StoredRangeOptions{.key = key_root + "/ranges/serviceips",
                                   .resource = "serviceipallocations",
                                   .range = network.cluster_ips.text(),
                                   .size = ip_range_size(network.cluster_ips),
                                   .static_band = static_band(network.cluster_ips.size(), 256, 16)}),
      ports_(ports, StoredRangeOptions{
                        .key = key_root + "/ranges/servicenodeports",
                        .resource = "servicenodeportallocations",
                        .range = network.node_ports.text(),
                        .size = static_cast<std::uint64_t>(network.node_ports.size),
                        .static_band = static_band(static_cast<std::uint64_t>(network.node_ports.size), 128, 32)}) {}

std::vector<std::uint64_t> ServiceAllocator::ip_offsets(const json::object& service) const {
  if (!needs_cluster_ip(service) || is_headless(service)) return {};
  // The bitmap's offset 0 is the range's first address after the network's.
  auto offset = network_.cluster_ips.offset_of(cluster_ip_of(object_at(service, "spec")));
  if (!offset || *offset < 1 || *offset > ip_range_size(network_.cluster_ips)) return {};
  return {*offset - 1};
}

std::vector<std::uint64_t> ServiceAllocator::port_offsets(const json::object& service) const {
  const json::object* spec = object_at(service, "spec");
  std::set<std::uint64_t> offsets;
  auto note = [&](std::int64_t port) {
    if (network_.node_ports.contains(port)) offsets.insert(static_cast<std::uint64_t>(port - network_.node_ports.base));
  };
  for_each_object(spec, "ports", [&](const json::object& port, std::size_t) { note(int_or_zero(&port, "nodePort")); });
  note(int_or_zero(spec, "healthCheckNodePort"));
  return {offsets.begin(), offsets.end()};
}

asio::awaitable<ServiceClaims> ServiceAllocator::allocate(json::object& service, const json::object* old,
                                                          bool dry_run) {
  ServiceClaims claims;
  const std::vector<std::uint64_t> old_ips = old ? ip_offsets(*old) : std::vector<std::uint64_t>{};
  const std::vector<std::uint64_t> old_ports = old ? port_offsets(*old) : std::vector<std::uint64_t>{};
  auto held_before = [](const std::vector<std::uint64_t>& held, std::uint64_t offset) {
    return std::find(held.begin(), held.end(), offset) != held.end();
  };
  json::object& spec = ensure_object(service, "spec");
  std::exception_ptr failure;
  try {
    if (needs_cluster_ip(service) && !is_headless(service)) {
      std::string ip = cluster_ip_of(&spec);
      if (ip.empty()) {
        std::optional<std::uint64_t> offset;
        try {
          if (dry_run) offset = co_await ips_.next_available();
          else offset = co_await ips_.allocate_next();
        } catch (const storage::StorageError& error) {
          throw ApiError(apierrors::internal_error(std::string("failed to allocate a serviceIP: ") + error.what()));
        }
        if (!offset) throw ApiError(apierrors::internal_error("failed to allocate a serviceIP: range is full"));
        if (!dry_run) claims.taken_ips.push_back(*offset);
        ip = network_.cluster_ips.address(*offset + 1);
      } else {
        auto offset = network_.cluster_ips.offset_of(ip);
        const bool in_range = offset && *offset >= 1 && *offset <= ip_range_size(network_.cluster_ips);
        const validation::Path path = validation::Path("spec").child("clusterIPs");
        const std::string values = "[]string{\"" + ip + "\"}";
        if (!in_range)
          throw_invalid(service, validation::invalid_value(
                                     path, values,
                                     "failed to allocate IP " + ip + ": the provided IP (" + ip +
                                         ") is not in the valid range. The range of valid IPs is " +
                                         network_.cluster_ips.text()));
        if (!held_before(old_ips, *offset - 1)) {
          bool taken = false;
          std::string why = "provided IP is already allocated";
          try {
            const std::uint64_t wanted = *offset - 1;
            if (dry_run) taken = co_await ips_.available(wanted);
            else taken = co_await ips_.allocate(wanted);
          } catch (const storage::StorageError& error) {
            why = error.what();
          }
          if (!taken) throw_invalid(service, validation::invalid_value(path, values, "failed to allocate IP " + ip + ": " + why));
          if (!dry_run) claims.taken_ips.push_back(*offset - 1);
        }
      }
      spec["clusterIP"] = ip;
      spec["clusterIPs"] = json::array{json::string(ip)};
    }
    // One node port may serve a port number twice (TCP and UDP): taken once.
    std::set<std::int64_t> this_service;
    // (Every parameter by value: the coroutine outlives the expression that calls it.)
    auto take_port = [&](json::object& holder, std::string_view key, validation::Path path) -> asio::awaitable<void> {
      const std::int64_t port = int_or_zero(&holder, key);
      if (port == 0) {
        std::optional<std::uint64_t> offset;
        try {
          if (dry_run) offset = co_await ports_.next_available();
          else offset = co_await ports_.allocate_next();
        } catch (const storage::StorageError& error) {
          throw ApiError(apierrors::internal_error(std::string("failed to allocate a nodePort: ") + error.what()));
        }
        if (!offset) throw ApiError(apierrors::internal_error("failed to allocate a nodePort: range is full"));
        if (!dry_run) claims.taken_ports.push_back(*offset);
        holder[key] = network_.node_ports.base + static_cast<std::int64_t>(*offset);
        this_service.insert(network_.node_ports.base + static_cast<std::int64_t>(*offset));
        co_return;
      }
      if (!network_.node_ports.contains(port))
        throw_invalid(service, validation::invalid_value(path, std::to_string(port),
                                                         "provided port is not in the valid range. The range of "
                                                         "valid ports is " + network_.node_ports.text()));
      const auto offset = static_cast<std::uint64_t>(port - network_.node_ports.base);
      if (!this_service.insert(port).second || held_before(old_ports, offset)) co_return;
      bool taken = false;
      std::string why = "provided port is already allocated";
      try {
        if (dry_run) taken = co_await ports_.available(offset);
        else taken = co_await ports_.allocate(offset);
      } catch (const storage::StorageError& error) {
        why = error.what();
      }
      if (!taken) throw_invalid(service, validation::invalid_value(path, std::to_string(port), why));
      if (!dry_run) claims.taken_ports.push_back(offset);
    };
    if (needs_node_ports(service)) {
      if (json::array* ports = array_at(spec, "ports")) {
        for (std::size_t i = 0; i < ports->size(); ++i) {
          if (!(*ports)[i].is_object()) continue;
          auto taking = take_port((*ports)[i].as_object(), "nodePort",
                                  validation::Path("spec").child("ports").index(i).child("nodePort"));
          co_await std::move(taking);
        }
      }
    }
    if (needs_health_check_node_port(service)) {
      auto taking = take_port(spec, "healthCheckNodePort", validation::Path("spec").child("healthCheckNodePort"));
      co_await std::move(taking);
    }
  } catch (...) {
    failure = std::current_exception();
  }
  if (failure) {
    co_await finish(std::move(claims), false);
    std::rethrow_exception(failure);
  }
  // What the stored service held and this one does not is given back once this one is stored.
  const std::vector<std::uint64_t> new_ips = ip_offsets(service);
  const std::vector<std::uint64_t> new_ports = port_offsets(service);
  for (std::uint64_t offset : old_ips)
    if (!held_before(new_ips, offset)) claims.freed_ips.push_back(offset);
  for (std::uint64_t offset : old_ports)
    if (!held_before(new_ports, offset)) claims.freed_ports.push_back(offset);
  co_return claims;
}

asio::awaitable<void> ServiceAllocator::finish(ServiceClaims claims, bool stored) {
  // Best effort, as kube's Commit and Revert: what is left held the repair frees after a few passes.
  try {
    std::vector<std::uint64_t> ips = stored ? std::move(claims.freed_ips) : std::move(claims.taken_ips);
    std::vector<std::uint64_t> ports = stored ? std::move(claims.freed_ports) : std::move(claims.taken_ports);
    co_await ips_.release(std::move(ips));
    co_await ports_.release(std::move(ports));
  } catch (const std::exception&) {
  }
}

asio::awaitable<void> ServiceAllocator::release(const json::object& service) {
  ServiceClaims claims{.freed_ips = ip_offsets(service), .freed_ports = port_offsets(service)};
  co_await finish(std::move(claims), true);
}

}  // namespace kapi::apis::core
