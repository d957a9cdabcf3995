#pragma once
// The host's own address, for what must name a reachable, non-loopback IP (the `kubernetes` endpoints, an
// extension API server's Endpoints in tests).
#include <string>

namespace kapi::base {

// The first non-loopback IPv4 address of an interface that is up; "" when there is none.
std::string first_host_ipv4();

}  // namespace kapi::base
