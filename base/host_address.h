#pragma once
// The host's own name and address: the name as Go's os.Hostname reads it (identities that name their host), the
// address for what must name a reachable, non-loopback IP (the `kubernetes` endpoints, an extension API server's
// Endpoints in tests).
#include <string>

namespace kapi::base {

// gethostname(2), as os.Hostname; "" when it fails.
std::string hostname();

// The first non-loopback IPv4 address of an interface that is up; "" when there is none.
std::string first_host_ipv4();

}  // namespace kapi::base
