#pragma once
// The class DefaultStorageClass and DefaultIngressClass give objects that name none (kube's
// storageutil.GetDefaultClass and the defaultingressclass plugin's getDefaultClass, 1.32): among the classes
// marked default, the newest; between classes made in the same second, the first by name.
#include "server/admission/attributes.h"
#include "server/registry/store.h"

#include <asio/awaitable.hpp>

#include <functional>
#include <optional>
#include <string>

namespace kapi::admission {

// The name of the default class among `classes` (cluster-scoped), or std::nullopt when none is marked.
// `is_default` says whether a class's annotations mark it.
asio::awaitable<std::optional<std::string>> newest_default_class(
    registry::Store& classes, std::function<bool(const boost::json::object& annotations)> is_default);

}  // namespace kapi::admission
