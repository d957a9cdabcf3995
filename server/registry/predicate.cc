#include "server/registry/predicate.h"

#include "server/apierrors/errors.h"
#include "server/registry/object_meta.h"
#include "server/selectors/field_selector.h"
#include "server/selectors/label_selector.h"

#include <boost/json.hpp>

#include <algorithm>
#include <memory>

namespace kapi::registry {

storage::Predicate make_predicate(std::string_view label_selector, std::string_view field_selector,
                                  const Strategy& strategy) {
  selectors::LabelSelector labels;
  selectors::FieldSelector fields;
  try {
    labels = selectors::LabelSelector::parse(label_selector);
    fields = selectors::FieldSelector::parse(field_selector);
  } catch (const std::exception& error) {
    throw apierrors::ApiError(apierrors::bad_request(error.what()));
  }
  const auto names = strategy.selectable_field_names();
  for (const auto& field : fields.fields()) {
    if (field == "metadata.name" || field == "metadata.namespace") continue;
    if (std::find(names.begin(), names.end(), field) == names.end())
      throw apierrors::ApiError(apierrors::bad_request("field label not supported: " + field));
  }
  if (labels.empty() && fields.empty()) return {};
  auto state = std::make_shared<std::pair<selectors::LabelSelector, selectors::FieldSelector>>(std::move(labels),
                                                                                               std::move(fields));
  return [state, &strategy](const storage::ObjectView& kv) {
    boost::json::value value;
    try {
      value = parse_json(kv.value);
    } catch (const std::exception&) {
      return false;
    }
    if (!value.is_object()) return false;
    const boost::json::object& object = value.as_object();
    if (!state->first.empty()) {
      const boost::json::object* object_labels = nullptr;
      if (auto meta = object.find("metadata"); meta != object.end() && meta->value().is_object()) {
        auto found = meta->value().as_object().find("labels");
        if (found != meta->value().as_object().end() && found->value().is_object())
          object_labels = &found->value().as_object();
      }
      bool match = state->first.matches([&](std::string_view key) -> std::optional<std::string_view> {
        if (!object_labels) return std::nullopt;
        auto it = object_labels->find(key);
        if (it == object_labels->end() || !it->value().is_string()) return std::nullopt;
        return std::string_view(it->value().as_string());
      });
      if (!match) return false;
    }
    if (!state->second.empty()) {
      SelectableFields values{{"metadata.name", std::string(meta_string(object, "name"))},
                              {"metadata.namespace", std::string(meta_string(object, "namespace"))}};
      strategy.selectable_fields(object, values);
      if (!state->second.matches(values)) return false;
    }
    return true;
  };
}

}  // namespace kapi::registry
