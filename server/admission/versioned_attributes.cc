#include "server/admission/versioned_attributes.h"

#include "server/admission/object_interfaces.h"
#include "server/apierrors/errors.h"

#include <stdexcept>

namespace kapi::admission {

boost::json::object VersionedAttributes::convert(const boost::json::object& object, const GroupVersionKind& from,
                                                 const GroupVersionKind& to) const {
  if (!request_.object_interfaces)
    throw apierrors::ApiError(apierrors::internal_error("unable to convert to " + to.kind + ": unknown kind"));
  try {
    return request_.object_interfaces->convert(object, from, to);
  } catch (const std::exception& error) {
    throw apierrors::ApiError(apierrors::internal_error(error.what()));
  }
}

const Attributes& VersionedAttributes::as(const GroupVersionKind& kind) {
  if (kind == request_.kind) {
    flush();
    return request_;
  }
  for (const auto& view : views_)
    if (view->kind == kind) return view->attributes;
  // kube keeps one converted version at a time: a change to it goes back to the request first.
  flush();
  auto view = std::make_unique<View>(View{kind, request_, {}, std::nullopt});
  if (request_.object) {
    view->object = convert(*request_.object, request_.kind, kind);
    view->attributes.object = &view->object;
  }
  if (request_.old_object) {
    view->old_object = convert(*request_.old_object, request_.kind, kind);
    view->attributes.old_object = &*view->old_object;
  }
  return views_.emplace_back(std::move(view))->attributes;
}

void VersionedAttributes::changed(const Attributes& view) {
  if (&view == &request_) {
    dirty_ = nullptr;
    views_.clear();
    return;
  }
  std::erase_if(views_, [&](const auto& other) { return &other->attributes != &view; });
  dirty_ = views_.empty() ? nullptr : views_.front().get();
}

void VersionedAttributes::flush() {
  if (!dirty_) return;
  View* dirty = dirty_;
  dirty_ = nullptr;
  *request_.object = convert(dirty->object, dirty->kind, request_.kind);
}

}  // namespace kapi::admission
