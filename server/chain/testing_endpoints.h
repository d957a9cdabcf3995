#pragma once
// Endpoints that only the integration tests use (enabled by the hidden --enable-testing-endpoints flag): they
// let a test hold a request open, stream, panic or echo, to exercise the filters and the HTTP layer for real.
//   /debug/kapi/sleep?duration=2s   answers after the duration (honours cancellation)
//   /debug/kapi/panic               throws from the handler
//   /debug/kapi/echo                answers the request body back
//   /debug/kapi/stream              long-running: a chunk every 100 ms until the server ends it
#include "server/chain/director.h"
#include "server/lifecycle.h"

namespace kapi::server::chain {

inline constexpr std::string_view kTestingStreamPath = "/debug/kapi/stream";

void install_testing_endpoints(PathMux& mux, Lifecycle& lifecycle);

}  // namespace kapi::server::chain
