#pragma once
// How kube's admission plugins read other objects through their informers' listers, with the live read several of
// them fall back to when the lister misses (the informer may not have seen an object created a moment ago).
#include "server/registry/store.h"

#include <asio/awaitable.hpp>
#include <boost/json/object.hpp>

#include <optional>
#include <string>
#include <vector>

namespace kapi::admission {

// The object named `name`, read through the watch cache and, on a miss, live from storage; std::nullopt when it
// does not exist. Other errors propagate.
asio::awaitable<std::optional<boost::json::object>> find_object(registry::Store& store, std::string namespace_,
                                                                std::string name);

// Every object of the resource in `namespace_` ("" for all), as the watch cache holds them (a lister's List).
asio::awaitable<std::vector<boost::json::object>> list_objects(registry::Store& store, std::string namespace_);

}  // namespace kapi::admission
