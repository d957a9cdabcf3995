#pragma once
// The last delegate: what no server serves is a 404 Status (k8s.io/apiserver/pkg/util/notfoundhandler).
#include "request/exchange.h"

namespace kapi::server::chain {

asio::awaitable<void> serve_not_found(request::Exchange& exchange);

}  // namespace kapi::server::chain
