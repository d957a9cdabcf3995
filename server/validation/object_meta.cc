#include "server/validation/object_meta.h"

#include "base/name_validation.h"

#include <boost/json.hpp>

#include <algorithm>
#include <cctype>

namespace kapi::validation {
namespace {

std::string_view string_of(const boost::json::object& object, std::string_view key) {
  auto it = object.find(key);
  return it != object.end() && it->value().is_string() ? std::string_view(it->value().as_string()) : "";
}

}  // namespace

ErrorList validate_labels(const boost::json::object& labels, const Path& path) {
  ErrorList errors;
  for (const auto& [key, value] : labels) {
    for (auto& message : validation::is_qualified_name(key)) errors.push_back(invalid(path, key, message));
    if (!value.is_string()) {
      errors.push_back(invalid_value(path, boost::json::serialize(value), "label values must be strings"));
      continue;
    }
    for (auto& message : validation::is_valid_label_value(value.as_string())) errors.push_back(invalid(path, value.as_string(), message));
  }
  return errors;
}

ErrorList validate_annotations(const boost::json::object& annotations, const Path& path) {
  ErrorList errors;
  std::size_t total = 0;
  for (const auto& [key, value] : annotations) {
    std::string lower(key);
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
    for (auto& message : validation::is_qualified_name(lower)) errors.push_back(invalid(path, key, message));
    total += key.size() + (value.is_string() ? value.as_string().size() : 0);
  }
  if (total > kTotalAnnotationSizeLimit)
    errors.push_back({ErrorType::TooLong, path.str(), "",
                      "must have at most " + std::to_string(kTotalAnnotationSizeLimit) + " bytes"});
  return errors;
}

ErrorList validate_object_meta(const boost::json::object& object, bool namespaced, NameRule name_rule) {
  ErrorList errors;
  Path meta_path("metadata");
  auto meta_it = object.find("metadata");
  static const boost::json::object kEmpty;
  const boost::json::object& meta =
      meta_it != object.end() && meta_it->value().is_object() ? meta_it->value().as_object() : kEmpty;

  std::string_view name = string_of(meta, "name");
  std::string_view generate_name = string_of(meta, "generateName");
  if (name.empty()) {
    if (generate_name.empty()) errors.push_back(required(meta_path.child("name"), "name or generateName is required"));
  } else {
    auto messages = name_rule == NameRule::Dns1123Label   ? is_dns1123_label(name)
                    : name_rule == NameRule::PathSegment ? is_valid_path_segment_name(name)
                                                         : is_dns1123_subdomain(name);
    for (auto& message : messages) errors.push_back(invalid(meta_path.child("name"), name, message));
  }
  std::string_view namespace_ = string_of(meta, "namespace");
  if (namespaced) {
    if (namespace_.empty()) errors.push_back(required(meta_path.child("namespace")));
    else
      for (auto& message : is_dns1123_label(namespace_))
        errors.push_back(invalid(meta_path.child("namespace"), namespace_, message));
  } else if (!namespace_.empty()) {
    errors.push_back(forbidden(meta_path.child("namespace"), "not allowed on this type"));
  }
  if (auto it = meta.find("labels"); it != meta.end() && it->value().is_object()) {
    auto label_errors = validate_labels(it->value().as_object(), meta_path.child("labels"));
    errors.insert(errors.end(), label_errors.begin(), label_errors.end());
  }
  if (auto it = meta.find("annotations"); it != meta.end() && it->value().is_object()) {
    auto annotation_errors = validate_annotations(it->value().as_object(), meta_path.child("annotations"));
    errors.insert(errors.end(), annotation_errors.begin(), annotation_errors.end());
  }
  return errors;
}

}  // namespace kapi::validation
