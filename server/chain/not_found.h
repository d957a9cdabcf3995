#pragma once
// The last delegate: what no server serves is a 404 Status (k8s.io/apiserver/pkg/util/notfoundhandler).
#include "filters/filter.h"

namespace kapi::server::chain {

asio::awaitable<void> serve_not_found(filters::Exchange& exchange);

}  // namespace kapi::server::chain
