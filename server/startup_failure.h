#pragma once
// How kapi-apiserver's start-up gives up on a flag or a file it cannot use.
#include "base/log.h"

#include <string>

namespace kapi::server {

// A flag or a file that keeps kapi-apiserver from starting: the process exits 1.
struct StartupFailure {};

// Logs why kapi-apiserver cannot start where that is found, before unwinding destroys what was already built (which
// may wait: a Cacher's destructor waits for its reflector, and the reactor has not run).
[[noreturn]] inline void fail_startup(base::Logger& logger, const std::string& message) {
  logger.error(message);
  throw StartupFailure{};
}

}  // namespace kapi::server
