// core/v1 LimitRange (pkg/registry/core/limitrange, validation.ValidateLimitRange, v1.SetDefaults_LimitRangeItem):
// kube has no printer for it, so tables use the default Name and Created At columns.
#include "base/name_validation.h"
#include "server/apis/core/core_validation.h"
#include "server/apis/core/resource_names.h"
#include "server/apis/core/resource_validation.h"
#include "server/apis/resource_storage.h"
#include "server/registry/json_fields.h"

#include <cstdio>
#include <map>
#include <set>

namespace kapi::apis {
namespace {

using namespace registry::fields;
using validation::ErrorList;
using validation::Path;

// The quantities of one resource list, by resource name; the text is kept for the messages.
struct Quantity {
  std::string text;
  QuantityNanos value = 0;
};
using Quantities = std::map<std::string, Quantity, std::less<>>;

Quantities quantities_of(const json::object& item, std::string_view list) {
  Quantities out;
  if (const json::object* values = object_at(item, list))
    for (const auto& [name, value] : *values)
      if (value.is_string())
        out[std::string(name)] = {std::string(value.as_string()), parse_quantity(value.as_string()).value_or(0)};
  return out;
}

ErrorList resource_name_errors(std::string_view type, std::string_view name, const Path& path) {
  if (type == "Pod" || type == "Container") return core::container_resource_name_errors(name, path);
  return core::resource_name_errors(name, path);
}

// Quantity.MilliValue(), rounded up as kube rounds it.
double millis(QuantityNanos value) { return static_cast<double>((value + 999'999) / 1'000'000); }

void validate_item(const json::object& item, const Path& at, std::set<std::string, std::less<>>& types,
                   ErrorList& errors) {
  const std::string_view type = string_at(item, "type");
  {
    ErrorList type_errors;
    for (auto& message : validation::is_qualified_name(type))
      type_errors.push_back(validation::invalid(at.child("type"), type, message));
    if (type_errors.empty() && type.find('/') == std::string_view::npos && type != "Pod" && type != "Container" &&
        type != "PersistentVolumeClaim")
      type_errors.push_back(validation::invalid(at.child("type"), type, "must be a standard limit type or fully qualified"));
    core::append(errors, std::move(type_errors));
  }
  if (!types.emplace(type).second) errors.push_back(validation::duplicate(at.child("type"), type));

  std::set<std::string, std::less<>> keys;
  const Quantities max = quantities_of(item, "max");
  const Quantities min = quantities_of(item, "min");
  Quantities defaults, default_requests;
  auto check_names = [&](const Quantities& list, std::string_view member) {
    for (const auto& [name, quantity] : list) {
      core::append(errors, resource_name_errors(type, name, at.child(member).key(name)));
      keys.insert(name);
    }
  };
  check_names(max, "max");
  check_names(min, "min");
  if (type == "Pod") {
    if (const json::object* values = object_at(item, "default"); values && !values->empty())
      errors.push_back(validation::forbidden(at.child("default"), "may not be specified when `type` is 'Pod'"));
    if (const json::object* values = object_at(item, "defaultRequest"); values && !values->empty())
      errors.push_back(validation::forbidden(at.child("defaultRequest"), "may not be specified when `type` is 'Pod'"));
  } else {
    defaults = quantities_of(item, "default");
    default_requests = quantities_of(item, "defaultRequest");
    check_names(defaults, "default");
    check_names(default_requests, "defaultRequest");
  }
  if (type == "PersistentVolumeClaim" && !min.contains("storage") && !max.contains("storage"))
    errors.push_back(validation::required(at.child("limits"),
                                          "either minimum or maximum storage value is required, but neither was provided"));
  const Quantities ratios = quantities_of(item, "maxLimitRequestRatio");
  check_names(ratios, "maxLimitRequestRatio");

  for (const auto& key : keys) {
    const auto found = [&key](const Quantities& list) -> const Quantity* {
      auto it = list.find(key);
      return it == list.end() ? nullptr : &it->second;
    };
    const Quantity* lo = found(min);
    const Quantity* hi = found(max);
    const Quantity* limit = found(defaults);
    const Quantity* request = found(default_requests);
    const Quantity* ratio = found(ratios);
    if (lo && hi && lo->value > hi->value)
      errors.push_back(validation::invalid(at.child("min").key(key), lo->text,
                                           "min value " + lo->text + " is greater than max value " + hi->text));
    if (request && lo && lo->value > request->value)
      errors.push_back(validation::invalid(at.child("defaultRequest").key(key), request->text,
                                           "min value " + lo->text + " is greater than default request value " +
                                               request->text));
    if (request && hi && request->value > hi->value)
      errors.push_back(validation::invalid(at.child("defaultRequest").key(key), request->text,
                                           "default request value " + request->text + " is greater than max value " +
                                               hi->text));
    if (request && limit && request->value > limit->value)
      errors.push_back(validation::invalid(at.child("defaultRequest").key(key), request->text,
                                           "default request value " + request->text +
                                               " is greater than default limit value " + limit->text));
    if (limit && lo && lo->value > limit->value)
      errors.push_back(validation::invalid(at.child("default").key(key), lo->text,
                                           "min value " + lo->text + " is greater than default value " + limit->text));
    if (limit && hi && limit->value > hi->value)
      errors.push_back(validation::invalid(at.child("default").key(key), hi->text,
                                           "default value " + limit->text + " is greater than max value " + hi->text));
    if (ratio && ratio->value < QuantityNanos(1'000'000'000))
      errors.push_back(validation::invalid(at.child("maxLimitRequestRatio").key(key), ratio->text,
                                           "ratio " + ratio->text + " is less than 1"));
    if (ratio && lo && hi) {
      const double bound = millis(hi->value) / millis(lo->value);
      if (millis(ratio->value) / 1000 > bound) {
        char text[64];
        std::snprintf(text, sizeof text, "%f", bound);
        errors.push_back(validation::invalid(at.child("maxLimitRequestRatio").key(key), ratio->text,
                                             "ratio " + ratio->text + " is greater than max/min = " + text));
      }
    }
    if (!core::is_overcommit_allowed(key) && limit && request && limit->value != request->value)
      errors.push_back(validation::invalid(at.child("defaultRequest").key(key), request->text,
                                           "default value " + limit->text + " must equal to defaultRequest value " +
                                               request->text + " in " + key));
  }
}

// SetDefaults_LimitRangeItem: a container's default limit is its max, its default request the default limit,
// else the min.
void default_item(json::object& item) {
  if (string_at(item, "type") != "Container") return;
  json::object limits = object_or_empty(item, "default");
  json::object requests = object_or_empty(item, "defaultRequest");
  for (const auto& [name, value] : object_or_empty(item, "max"))
    if (!limits.contains(name)) limits[name] = value;
  for (const auto& [name, value] : limits)
    if (!requests.contains(name)) requests[name] = value;
  for (const auto& [name, value] : object_or_empty(item, "min"))
    if (!requests.contains(name)) requests[name] = value;
  if (!limits.empty()) item["default"] = std::move(limits);
  if (!requests.empty()) item["defaultRequest"] = std::move(requests);
}

class LimitRangeStrategy final : public registry::Strategy {
 public:
  void prepare_for_create(json::object& object) const override { apply_defaults(object); }
  void prepare_for_update(json::object& object, const json::object&) const override { apply_defaults(object); }
  ErrorList validate(const json::object& object) const override { return core::validate_limit_range(object); }

 private:
  static void apply_defaults(json::object& object) {
    for_each_object(object_at(&object, "spec"), "limits", [](json::object& item, std::size_t) { default_item(item); });
  }
};

}  // namespace

namespace core {

ErrorList validate_limit_range(const json::object& limit_range) {
  ErrorList errors;
  std::set<std::string, std::less<>> types;
  const Path path = Path("spec").child("limits");
  for_each_object(object_at(limit_range, "spec"), "limits",
                  [&](const json::object& item, std::size_t i) { validate_item(item, path.index(i), types, errors); });
  return errors;
}

}  // namespace core

ResourceStorage limitranges() {
  registry::ResourceDefinition definition{.group = "", .version = "v1", .resource = "limitranges", .kind = "LimitRange",
                                          .singular = "limitrange", .namespaced = true, .short_names = {"limits"}};
  return {std::move(definition), std::make_shared<LimitRangeStrategy>()};
}

}  // namespace kapi::apis
