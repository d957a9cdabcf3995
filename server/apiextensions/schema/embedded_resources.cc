#include "server/apiextensions/schema/embedded_resources.h"

#include "base/name_validation.h"
#include "server/apiextensions/schema/go_values.h"
#include "server/validation/object_meta.h"

#include <boost/json.hpp>

#include <algorithm>
#include <cctype>

namespace kapi::apiextensions::schema {
namespace {

namespace json = boost::json;
using validation::ErrorList;
using validation::Path;

std::string joined(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& part : parts) out += (out.empty() ? "" : ",") + part;
  return out;
}

void validate_embedded_resource(const Path& path, const json::object& x, ErrorList& errors) {
  if (!x.contains("apiVersion")) errors.push_back(validation::required(path.child("apiVersion")));
  if (!x.contains("kind")) errors.push_back(validation::required(path.child("kind")));
  for (const auto& member : x) {
    const json::value& v = member.value();
    if (member.key() == "apiVersion") {
      if (!v.is_string()) {
        errors.push_back(validation::invalid_value(path.child("apiVersion"), field_error_value(v), "must be a string"));
      } else if (v.get_string().empty()) {
        errors.push_back(validation::required(path.child("apiVersion")));
      } else if (std::count(v.get_string().begin(), v.get_string().end(), '/') > 1) {
        // schema.ParseGroupVersion accepts "version" and "group/version".
        errors.push_back(validation::invalid(path.child("apiVersion"), v.get_string(),
                                             "unexpected GroupVersion string: " + std::string(v.get_string())));
      }
    } else if (member.key() == "kind") {
      if (!v.is_string()) {
        errors.push_back(validation::invalid_value(path.child("kind"), field_error_value(v), "must be a string"));
      } else if (v.get_string().empty()) {
        errors.push_back(validation::required(path.child("kind")));
      } else {
        std::string lower(v.get_string());
        std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
        if (auto messages = validation::is_dns1035_label(lower); !messages.empty())
          errors.push_back(validation::invalid(path.child("kind"), v.get_string(),
                                               "may have mixed case, but should otherwise match: " + joined(messages)));
      }
    } else if (member.key() == "metadata" && v.is_object()) {
      // ValidateObjectMeta with a stand-in name, as kube validates embedded metadata; namespaced when it has one.
      json::object meta = v.get_object();
      const json::value* name = meta.if_contains("name");
      if (!name || !name->is_string() || name->get_string().empty()) meta["name"] = "fakename";
      const json::value* ns = meta.if_contains("namespace");
      bool namespaced = ns && ns->is_string() && !ns->get_string().empty();
      json::object holder;
      holder["metadata"] = std::move(meta);
      for (auto& error : validation::validate_object_meta(holder, namespaced, validation::NameRule::PathSegment)) {
        error.field = path.str() + "." + error.field;  // ValidateObjectMeta names fields from "metadata"
        errors.push_back(std::move(error));
      }
    }
  }
}

void walk(const Path& path, const json::value& x, const Schema* s, ErrorList& errors) {
  if (!s) return;
  if (x.is_object()) {
    const auto& object = x.get_object();
    if (s->x_embedded_resource) validate_embedded_resource(path, object, errors);
    for (const auto& member : object) {
      if (const Schema* property = s->property(member.key())) walk(path.child(member.key()), member.value(), property, errors);
      else if (s->additional_properties)
        walk(path.key(member.key()), member.value(), s->additional_properties_schema(), errors);
    }
  } else if (x.is_array()) {
    const auto& array = x.get_array();
    for (std::size_t i = 0; i < array.size(); ++i) walk(path.index(i), array[i], s->items.get(), errors);
  }
}

}  // namespace

ErrorList validate_embedded_resources(const json::value& object, const Schema& schema) {
  ErrorList errors;
  if (!object.is_object()) return errors;
  // The root's apiVersion, kind and metadata are the registry's; walk its fields from an empty path.
  for (const auto& member : object.get_object()) {
    if (const Schema* property = schema.property(member.key())) walk(Path(std::string(member.key())), member.value(), property, errors);
    else if (schema.additional_properties)
      walk(Path(std::string(member.key())), member.value(), schema.additional_properties_schema(), errors);
  }
  return errors;
}

}  // namespace kapi::apiextensions::schema
