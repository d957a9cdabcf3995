#include "server/apiextensions/schema/pruning.h"

#include <boost/json.hpp>

#include <algorithm>
#include <array>

namespace kapi::apiextensions::schema {
namespace {

namespace json = boost::json;

bool is_meta_field(std::string_view key) { return key == "apiVersion" || key == "kind" || key == "metadata"; }

// UnknownFieldPathOptions: the path of the value being walked, and the unknown fields found so far.
class Pruner {
 public:
  // prune(x, s): `s` may be null (nothing is known below); `embedded` is s's x-kubernetes-embedded-resource, or
  // true for the resource root.
  void prune(json::value& x, const Schema* s, bool embedded) {
    if (s && s->preserves_unknown_fields()) {
      skip_prune(x, s, embedded);
      return;
    }
    if (x.is_object()) {
      auto& object = x.get_object();
      if (!s) {
        for (const auto& member : object) record(member.key());
        object.clear();
        return;
      }
      std::vector<std::string> unknown;
      for (auto& member : object) {
        std::string_view key = member.key();
        if (embedded && is_meta_field(key)) continue;
        if (!prune_member(key, member.value(), *s)) {
          if (!is_meta_field(key) || !path_.empty()) record(key);
          unknown.emplace_back(key);
        }
      }
      for (const auto& key : unknown) object.erase(key);
    } else if (x.is_array()) {
      auto& array = x.get_array();
      const Schema* items = s ? s->items.get() : nullptr;
      for (std::size_t i = 0; i < array.size(); ++i)
        descend_index(i, [&] { prune(array[i], items, items && items->x_embedded_resource); });
    }
  }

  std::vector<std::string> take_unknown() {
    std::sort(unknown_.begin(), unknown_.end());
    return std::move(unknown_);
  }

 private:
  // Below x-kubernetes-preserve-unknown-fields unknown fields stay, but specified ones are still pruned inside.
  void skip_prune(json::value& x, const Schema* s, bool embedded) {
    if (!s) return;
    if (x.is_object()) {
      for (auto& member : x.get_object()) {
        std::string_view key = member.key();
        if (embedded && is_meta_field(key)) continue;
        prune_member(key, member.value(), *s);
      }
    } else if (x.is_array()) {
      auto& array = x.get_array();
      const Schema* items = s->items.get();
      for (std::size_t i = 0; i < array.size(); ++i)
        descend_index(i, [&] { skip_prune(array[i], items, items && items->x_embedded_resource); });
    }
  }

  // Prunes an object member by the schema `s` gives it (a property, else additionalProperties); false when `s`
  // knows no such member.
  bool prune_member(std::string_view key, json::value& value, const Schema& s) {
    const Schema* member = s.property(key);
    if (!member && !s.additional_properties) return false;
    if (!member) member = s.additional_properties_schema();
    descend_key(key, [&] { prune(value, member, member && member->x_embedded_resource); });
    return true;
  }

  template <class F>
  void descend_key(std::string_view key, F&& walk) {
    std::size_t length = path_.size();
    path_ += (path_.empty() ? "" : ".") + std::string(key);
    walk();
    path_.resize(length);
  }
  template <class F>
  void descend_index(std::size_t index, F&& walk) {
    std::size_t length = path_.size();
    path_ += "[" + std::to_string(index) + "]";
    walk();
    path_.resize(length);
  }
  void record(std::string_view key) { unknown_.push_back(path_.empty() ? std::string(key) : path_ + "." + std::string(key)); }

  std::string path_;
  std::vector<std::string> unknown_;
};

// metav1.ObjectMeta's JSON fields.
bool is_object_meta_field(std::string_view key) {
  static constexpr std::array<std::string_view, 15> kFields = {
      "name", "generateName", "namespace", "selfLink", "uid", "resourceVersion", "generation", "creationTimestamp",
      "deletionTimestamp", "deletionGracePeriodSeconds", "labels", "annotations", "ownerReferences", "finalizers",
      "managedFields"};
  return std::find(kFields.begin(), kFields.end(), key) != kFields.end();
}

// objectmeta.Coerce's walk (isResourceRoot=false): every x-kubernetes-embedded-resource object below the root.
void coerce(json::value& x, const Schema* s, const std::string& path, std::vector<std::string>& unknown) {
  if (!s) return;
  if (x.is_object()) {
    auto& object = x.get_object();
    if (s->x_embedded_resource) {
      if (json::value* metadata = object.if_contains("metadata"); metadata && metadata->is_object()) {
        auto& meta = metadata->get_object();
        std::vector<std::string> dropped;
        for (const auto& member : meta)
          if (!is_object_meta_field(member.key())) dropped.emplace_back(member.key());
        for (const auto& key : dropped) {
          unknown.push_back((path.empty() ? "" : path + ".") + "metadata." + key);
          meta.erase(key);
        }
        if (!meta.contains("creationTimestamp")) meta["creationTimestamp"] = nullptr;
      }
    }
    for (auto& member : object) {
      std::string child = path.empty() ? std::string(member.key()) : path + "." + std::string(member.key());
      if (const Schema* property = s->property(member.key())) coerce(member.value(), property, child, unknown);
      else if (s->additional_properties) coerce(member.value(), s->additional_properties_schema(), child, unknown);
    }
  } else if (x.is_array()) {
    auto& array = x.get_array();
    for (std::size_t i = 0; i < array.size(); ++i)
      coerce(array[i], s->items.get(), path + "[" + std::to_string(i) + "]", unknown);
  }
}

}  // namespace

std::vector<std::string> prune(json::value& object, const Schema& schema, bool is_resource_root) {
  Pruner pruner;
  pruner.prune(object, &schema, is_resource_root || schema.x_embedded_resource);
  return pruner.take_unknown();
}

std::vector<std::string> coerce_embedded_metadata(json::value& object, const Schema& schema) {
  std::vector<std::string> unknown;
  if (!object.is_object()) return unknown;
  // The root's own metadata is the registry's business; only nested embedded resources are coerced here.
  for (auto& member : object.get_object()) {
    if (const Schema* property = schema.property(member.key()))
      coerce(member.value(), property, std::string(member.key()), unknown);
    else if (schema.additional_properties)
      coerce(member.value(), schema.additional_properties_schema(), std::string(member.key()), unknown);
  }
  return unknown;
}

}  // namespace kapi::apiextensions::schema
