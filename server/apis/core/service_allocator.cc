#include "server/apis/core/service_allocator.h"

#include "server/apierrors/errors.h"
#include "base/json_fields.h"
#include "server/registry/object_meta.h"

#include <arpa/inet.h>

#include <algorithm>
#include <charconv>

namespace kapi::apis::core {
namespace {

using namespace base::fields;
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

// RangeAllocator.

RangeAllocator::RangeAllocator(std::uint64_t size, std::uint64_t static_band) : size_(size), static_band_(static_band) {}

bool RangeAllocator::free_at(std::uint64_t offset, Clock::time_point now) {
  auto it = held_.find(offset);
  if (it == held_.end()) return true;
  if (!it->second.confirmed && it->second.expires <= now) {
    held_.erase(it);
    return true;
  }
  return false;
}

bool RangeAllocator::reserve(std::uint64_t offset, std::string_view owner, Clock::time_point expires) {
  if (offset >= size_) return false;
  auto it = held_.find(offset);
  if (it != held_.end() && it->second.owner == owner) return true;
  if (!free_at(offset, Clock::now())) return false;
  held_[offset] = Holder{std::string(owner), false, expires};
  return true;
}

std::optional<std::uint64_t> RangeAllocator::allocate_next(std::string_view owner, Clock::time_point expires,
                                                           std::mt19937_64& random) {
  const auto now = Clock::now();
  auto scan = [&](std::uint64_t first, std::uint64_t count) -> std::optional<std::uint64_t> {
    if (count == 0) return std::nullopt;
    const std::uint64_t start = std::uniform_int_distribution<std::uint64_t>(0, count - 1)(random);
    for (std::uint64_t i = 0; i < count; ++i) {
      const std::uint64_t offset = first + (start + i) % count;
      if (free_at(offset, now)) {
        held_[offset] = Holder{std::string(owner), false, expires};
        return offset;
      }
    }
    return std::nullopt;
  };
  if (auto upper = scan(static_band_, size_ - static_band_)) return upper;
  return scan(0, static_band_);
}

void RangeAllocator::release_reservation(std::uint64_t offset, std::string_view owner) {
  auto it = held_.find(offset);
  if (it != held_.end() && it->second.owner == owner && !it->second.confirmed) held_.erase(it);
}

void RangeAllocator::confirm(std::string_view owner, const std::set<std::uint64_t>& offsets) {
  std::erase_if(held_, [&](const auto& entry) {
    return entry.second.owner == owner && entry.second.confirmed && !offsets.contains(entry.first);
  });
  for (std::uint64_t offset : offsets)
    if (offset < size_) held_[offset] = Holder{std::string(owner), true, {}};
}

void RangeAllocator::forget(std::string_view owner) {
  std::erase_if(held_, [&](const auto& entry) { return entry.second.owner == owner; });
}

void RangeAllocator::drop_confirmed() {
  std::erase_if(held_, [](const auto& entry) { return entry.second.confirmed; });
}

std::size_t RangeAllocator::used(Clock::time_point now) const {
  return static_cast<std::size_t>(std::count_if(held_.begin(), held_.end(), [&](const auto& entry) {
    return entry.second.confirmed || entry.second.expires > now;
  }));
}

// ServiceAllocator.

ServiceAllocator::ServiceAllocator(ServiceNetwork network, Clock::duration reservation_ttl)
    : network_(network),
      reservation_ttl_(reservation_ttl),
      ips_(ip_range_size(network.cluster_ips), static_band(network.cluster_ips.size(), 256, 16)),
      ports_(static_cast<std::uint64_t>(network.node_ports.size),
             static_band(static_cast<std::uint64_t>(network.node_ports.size), 128, 32)),
      random_(std::random_device{}()) {}

void ServiceAllocator::allocate(json::object& service) {
  std::lock_guard lock(mutex_);
  if (!ready_)
    throw ApiError(apierrors::service_unavailable("the service IP and node port allocators are starting; try again"));
  const std::string uid(registry::meta_string(service, "uid"));
  const auto expires = Clock::now() + reservation_ttl_;
  json::object& spec = ensure_object(service, "spec");
  std::vector<std::uint64_t> new_ips;
  std::vector<std::uint64_t> new_ports;
  try {
    if (needs_cluster_ip(service) && !is_headless(service)) {
      std::string ip = cluster_ip_of(&spec);
      if (ip.empty()) {
        auto offset = ips_.allocate_next(uid, expires, random_);
        if (!offset) throw ApiError(apierrors::internal_error("failed to allocate a serviceIP: range is full"));
        new_ips.push_back(*offset);
        ip = network_.cluster_ips.address(*offset + 1);
      } else {
        auto offset = network_.cluster_ips.offset_of(ip);
        const bool in_range = offset && *offset >= 1 && *offset <= ip_range_size(network_.cluster_ips);
        const std::string values = "[]string{\"" + ip + "\"}";
        if (!in_range)
          throw_invalid(service, validation::invalid_value(
                                     validation::Path("spec").child("clusterIPs"), values,
                                     "failed to allocate IP " + ip + ": the provided IP (" + ip +
                                         ") is not in the valid range. The range of valid IPs is " +
                                         network_.cluster_ips.text()));
        if (!ips_.reserve(*offset - 1, uid, expires))
          throw_invalid(service, validation::invalid_value(validation::Path("spec").child("clusterIPs"), values,
                                                           "failed to allocate IP " + ip +
                                                               ": provided IP is already allocated"));
      }
      spec["clusterIP"] = ip;
      spec["clusterIPs"] = json::array{json::string(ip)};
    }
    auto take_port = [&](json::object& holder, std::string_view key, const validation::Path& path) {
      const std::int64_t port = int_or_zero(&holder, key);
      if (port == 0) {
        auto offset = ports_.allocate_next(uid, expires, random_);
        if (!offset) throw ApiError(apierrors::internal_error("failed to allocate a nodePort: range is full"));
        new_ports.push_back(*offset);
        holder[key] = network_.node_ports.base + static_cast<std::int64_t>(*offset);
        return;
      }
      if (!network_.node_ports.contains(port))
        throw_invalid(service, validation::invalid_value(path, std::to_string(port),
                                                         "provided port is not in the valid range. The range of "
                                                         "valid ports is " + network_.node_ports.text()));
      if (!ports_.reserve(static_cast<std::uint64_t>(port - network_.node_ports.base), uid, expires))
        throw_invalid(service, validation::invalid_value(path, std::to_string(port), "provided port is already allocated"));
    };
    if (needs_node_ports(service))
      for_each_object(&spec, "ports", [&](json::object& port, std::size_t i) {
        take_port(port, "nodePort", validation::Path("spec").child("ports").index(i).child("nodePort"));
      });
    if (needs_health_check_node_port(service))
      take_port(spec, "healthCheckNodePort", validation::Path("spec").child("healthCheckNodePort"));
  } catch (...) {
    for (auto offset : new_ips) ips_.release_reservation(offset, uid);
    for (auto offset : new_ports) ports_.release_reservation(offset, uid);
    throw;
  }
}

void ServiceAllocator::observe_locked(const json::object& service) {
  const std::string_view uid = registry::meta_string(service, "uid");
  const json::object* spec = object_at(service, "spec");
  std::set<std::uint64_t> ips;
  std::set<std::uint64_t> ports;
  if (needs_cluster_ip(service) && !is_headless(service))
    if (auto offset = network_.cluster_ips.offset_of(cluster_ip_of(spec));
        offset && *offset >= 1 && *offset <= ip_range_size(network_.cluster_ips))
      ips.insert(*offset - 1);
  auto note_port = [&](std::int64_t port) {
    if (network_.node_ports.contains(port)) ports.insert(static_cast<std::uint64_t>(port - network_.node_ports.base));
  };
  for_each_object(spec, "ports", [&](const json::object& port, std::size_t) { note_port(int_or_zero(&port, "nodePort")); });
  note_port(int_or_zero(spec, "healthCheckNodePort"));
  ips_.confirm(uid, ips);
  ports_.confirm(uid, ports);
}

void ServiceAllocator::resync(const std::vector<json::object>& services) {
  std::lock_guard lock(mutex_);
  ips_.drop_confirmed();
  ports_.drop_confirmed();
  for (const auto& service : services) observe_locked(service);
  ready_ = true;
}

void ServiceAllocator::observe(const json::object& service) {
  std::lock_guard lock(mutex_);
  observe_locked(service);
}

void ServiceAllocator::forget(std::string_view uid) {
  std::lock_guard lock(mutex_);
  ips_.forget(uid);
  ports_.forget(uid);
}

bool ServiceAllocator::ready() const {
  std::lock_guard lock(mutex_);
  return ready_;
}

std::size_t ServiceAllocator::ips_in_use() const {
  std::lock_guard lock(mutex_);
  return ips_.used(Clock::now());
}

std::size_t ServiceAllocator::ports_in_use() const {
  std::lock_guard lock(mutex_);
  return ports_.used(Clock::now());
}

}  // namespace kapi::apis::core
