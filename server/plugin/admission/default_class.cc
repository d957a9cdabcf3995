#include "server/plugin/admission/default_class.h"

#include "server/registry/object_meta.h"

#include <boost/json.hpp>

namespace kapi::admission {

asio::awaitable<std::optional<std::string>> newest_default_class(
    registry::Store& classes, std::function<bool(const boost::json::object& annotations)> is_default) {
  registry::ListRequest request{.resource_version = "0"};
  const registry::ObjectList list = co_await classes.list("", std::move(request));
  std::optional<std::string> chosen;
  std::string chosen_created;
  for (const registry::ReadObject& item : list.items) {
    const std::optional<boost::json::object> object = registry::parse_json_object(item.json);
    if (!object) continue;
    const boost::json::value* metadata = object->if_contains("metadata");
    const boost::json::value* annotations =
        metadata && metadata->is_object() ? metadata->as_object().if_contains("annotations") : nullptr;
    if (!annotations || !annotations->is_object() || !is_default(annotations->as_object())) continue;
    const std::string name(registry::meta_string(*object, "name"));
    // creationTimestamp is RFC 3339 in UTC to the second: its text orders as its time does.
    const std::string created(registry::meta_string(*object, "creationTimestamp"));
    if (!chosen || created > chosen_created || (created == chosen_created && name < *chosen)) {
      chosen = name;
      chosen_created = created;
    }
  }
  co_return chosen;
}

}  // namespace kapi::admission
