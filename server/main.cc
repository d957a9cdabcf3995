// kapi-apiserver: a Kubernetes API server.
#include "server/apiserver.h"
#include "server/options.h"

#include <absl/synchronization/mutex.h>

#include <csignal>
#include <iostream>

int main(int argc, char** argv) {
  std::signal(SIGPIPE, SIG_IGN);  // a client that went away is an error code on the socket, not a signal
  // Debian builds abseil without NDEBUG, so every absl::Mutex (gRPC's, on each etcd call) would also update a
  // process-wide deadlock graph under one global lock: about 1 % of kapi's CPU on etcd writes.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  kapi::server::Options options;
  try {
    options = kapi::server::parse_options(argc, argv);
  } catch (const kapi::server::OptionsError& error) {
    std::cerr << "Error: " << error.what() << "\n\n" << kapi::server::usage();
    return 2;
  }
  if (options.show_help) {
    std::cout << kapi::server::usage();
    return 0;
  }
  return kapi::server::run_apiserver(options);
}
