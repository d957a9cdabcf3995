#pragma once
// How patch failures reach the client: each carries the Status kube-apiserver answers with for it
// (k8s.io/apiserver/pkg/endpoints/handlers/patch.go), and the library's own words, which some of those Statuses
// deliberately hide (a failed JSON patch is a bare 422) but logs and tests want.
#include "server/apierrors/errors.h"

#include <string>

namespace kapi::patch {

class PatchError : public apierrors::ApiError {
 public:
  PatchError(apierrors::Status status, std::string detail)
      : apierrors::ApiError(std::move(status)), detail_(std::move(detail)) {}
  // The failure as evanphx/json-patch or strategicpatch words it.
  const std::string& detail() const noexcept { return detail_; }

 private:
  std::string detail_;
};

namespace detail {

// 400 BadRequest with the message itself (errors.NewBadRequest).
[[noreturn]] void throw_bad_request(std::string message);
// 422 Invalid as errors.NewGenericServerResponse builds it: a fixed message, empty details; `detail` is kept
// only on the exception.
[[noreturn]] void throw_unprocessable(std::string detail);
// 413 RequestEntityTooLarge (errors.NewRequestEntityTooLargeError).
[[noreturn]] void throw_too_large(std::string message);
// A plain Go error that reaches the handler unconverted: responsewriters.ErrorToAPIStatus answers it with
// 500, no reason, and the error text as the message.
[[noreturn]] void throw_unconverted(std::string message);

}  // namespace detail
}  // namespace kapi::patch
