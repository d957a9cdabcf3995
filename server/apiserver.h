#pragma once
// kapi-apiserver as a whole: PKI, the server chain behind the common filter chain, the listeners, and the
// graceful shutdown on SIGTERM/SIGINT.
#include "server/options.h"

namespace kapi::server {

// Runs until a termination signal has been handled; returns the process exit code.
int run_apiserver(const Options& options);

}  // namespace kapi::server
