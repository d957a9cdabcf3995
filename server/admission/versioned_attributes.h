#pragma once
// kube's VersionedAttributes (k8s.io/apiserver/pkg/admission: attributes.go, conversion.go): the request as a
// webhook or policy matched through another version of its resource sees it (matchPolicy Equivalent), its object
// and old object converted to that version. Request kind and resource stay the request's: only the objects change.
//
// A mutating webhook patches the object of the view it was called with; a changed view is converted back into the
// request's object before a webhook of another version or the request itself sees it (`flush`).
//
// One per dispatch of one request, used by one coroutine at a time; what `as` returns lives as long as this, but
// a view of another version goes stale (and is made again) once `changed` reports a change to another view.
#include "server/admission/attributes.h"

#include <boost/json/object.hpp>

#include <memory>
#include <optional>
#include <vector>

namespace kapi::admission {

class VersionedAttributes {
 public:
  explicit VersionedAttributes(const Attributes& request) : request_(request) {}

  const Attributes& request() const { return request_; }

  // The request with its objects in `kind`'s version: the request itself when it is of that kind. Throws
  // ApiError (InternalError) when the object cannot be converted.
  const Attributes& as(const GroupVersionKind& kind);

  // A mutating webhook changed the object of `view` (one `as` returned).
  void changed(const Attributes& view);

  // Converts a changed object of another version back into the request's. Throws as `as` does.
  void flush();

 private:
  struct View {
    GroupVersionKind kind;
    Attributes attributes;
    boost::json::object object;
    std::optional<boost::json::object> old_object;
  };

  boost::json::object convert(const boost::json::object& object, const GroupVersionKind& from,
                              const GroupVersionKind& to) const;

  const Attributes& request_;
  std::vector<std::unique_ptr<View>> views_;
  View* dirty_ = nullptr;
};

}  // namespace kapi::admission
