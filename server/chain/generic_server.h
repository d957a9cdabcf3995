#pragma once
// What each of the three servers is made of: a director and the health checks it contributes
// (GenericAPIServer, as far as the delegation chain needs it).
#include "server/chain/director.h"
#include "server/healthz/healthz.h"

#include <vector>

namespace kapi::server::chain {

struct GenericServer {
  GenericServer(std::string name, request::Handler delegate) : director(std::move(name), std::move(delegate)) {}
  Director director;
  std::vector<healthz::Check> health_checks;
  std::vector<healthz::Check> readiness_checks;  // readyz only
};

}  // namespace kapi::server::chain
