#pragma once
// The aggregator: the server every request enters. It serves APIService-registered group/versions (the
// aggregator issue) and the non-API endpoints, and delegates the rest to the Kube API server.
#include "server/chain/generic_server.h"

namespace kapi::server::chain {

class AggregatorServer {
 public:
  explicit AggregatorServer(request::Handler delegate) : server_("kube-aggregator", std::move(delegate)) {}
  GenericServer& generic() { return server_; }

 private:
  GenericServer server_;
};

}  // namespace kapi::server::chain
