#pragma once
// The Kube API server: the built-in resource groups under /api and /apis. Its delegate is the API extensions
// server. (Its REST storage providers come with the registry issue.)
#include "server/chain/generic_server.h"

namespace kapi::server::chain {

class KubeApiServer {
 public:
  explicit KubeApiServer(request::Handler delegate) : server_("kube-apiserver", std::move(delegate)) {}
  GenericServer& generic() { return server_; }

 private:
  GenericServer server_;
};

}  // namespace kapi::server::chain
