#pragma once
// Answering with a metav1.Status body (responsewriters.ErrorNegotiated, JSON only for now).
#include "server/apierrors/errors.h"
#include "server/http/response_writer.h"

#include <asio/awaitable.hpp>

namespace kapi::http {

// Not a coroutine: `status` is read before this returns (the awaitable owns the encoded body), so a temporary
// Status may be passed even where the awaitable is returned rather than awaited at once.
inline asio::awaitable<void> write_status(ResponseWriter& response, const apierrors::Status& status) {
  response.headers().set("Content-Type", "application/json");
  if (status.details && status.details->retry_after_seconds > 0)
    response.headers().set("Retry-After", std::to_string(status.details->retry_after_seconds));
  return response.write(status.code, apierrors::to_json(status));
}

}  // namespace kapi::http
