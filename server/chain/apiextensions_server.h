#pragma once
// The API extensions server: CustomResourceDefinitions and the custom resources they define. Its delegate is
// the NotFound handler. (Its resources come with the API extensions issue; today it serves nothing itself.)
#include "server/chain/generic_server.h"

namespace kapi::server::chain {

class ApiExtensionsServer {
 public:
  explicit ApiExtensionsServer(request::Handler delegate) : server_("apiextensions-apiserver", std::move(delegate)) {}
  GenericServer& generic() { return server_; }

 private:
  GenericServer server_;
};

}  // namespace kapi::server::chain
