#include "server/patch/patch_error.h"

namespace kapi::patch::detail {

void throw_bad_request(std::string message) {
  throw PatchError(apierrors::bad_request(message), message);
}

void throw_unprocessable(std::string detail) {
  apierrors::Status status{422, "Invalid", "the server rejected our request due to an error in our request",
                           apierrors::StatusDetails{}};
  throw PatchError(std::move(status), std::move(detail));
}

void throw_too_large(std::string message) {
  throw PatchError(apierrors::request_entity_too_large(message), message);
}

void throw_unconverted(std::string message) {
  throw PatchError(apierrors::Status{500, "", message, std::nullopt}, message);
}

}  // namespace kapi::patch::detail
