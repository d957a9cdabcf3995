#pragma once
// A list or watch's labelSelector and fieldSelector as a storage predicate (the role of storage.SelectionPredicate
// with the resource's GetAttrs): parsed once per request, evaluated on each candidate object.
#include "server/registry/strategy.h"
#include "storage/interface.h"

#include <string_view>

namespace kapi::registry {

// Throws ApiError 400 for a selector that does not parse or a field the resource cannot select on
// ("field label not supported: spec.foo"). An empty predicate when both selectors are empty.
storage::Predicate make_predicate(std::string_view label_selector, std::string_view field_selector,
                                  const Strategy& strategy);

}  // namespace kapi::registry
