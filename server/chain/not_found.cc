#include "server/chain/not_found.h"

#include "server/http/status_response.h"

namespace kapi::server::chain {

asio::awaitable<void> serve_not_found(request::Exchange& exchange) {
  co_await http::write_status(*exchange.response, apierrors::path_not_found());
}

}  // namespace kapi::server::chain
