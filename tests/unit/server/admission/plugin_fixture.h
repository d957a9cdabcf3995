#pragma once
// What the pod admission plugins' tests share: registry Stores over the embedded backend for the objects the
// plugins read (service accounts, priority classes, runtime classes), a PluginContext that finds them, and
// Attributes of the requests the plugins see.
#include "server/admission/plugin.h"
#include "server/apierrors/errors.h"
#include "server/registry/store.h"
#include "server/registry/strategy.h"
#include "storage/embedded/store.h"
#include "tests/support/io_thread.h"
#include "tests/support/temp_dir.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <map>
#include <memory>
#include <optional>
#include <string>

namespace kapi::admission::fixture {

namespace json = boost::json;

class PluginFixture : public ::testing::Test {
 protected:
  PluginFixture() {
    storage::embedded::Options options;
    options.data_dir = dir_.path() / "data";
    backend_ = storage::embedded::Store::open(std::move(options));
    add("", "serviceaccounts", "ServiceAccount", true);
    add("scheduling.k8s.io", "priorityclasses", "PriorityClass", false);
    add("node.k8s.io", "runtimeclasses", "RuntimeClass", false);
  }

  PluginContext context() {
    PluginContext context;
    context.stores = [this](std::string_view group, std::string_view resource) -> registry::Store* {
      auto found = stores_.find(std::string(group) + "/" + std::string(resource));
      return found == stores_.end() ? nullptr : found->second.get();
    };
    context.executor = io_.executor();
    return context;
  }

  // Stores `object` (JSON text) as a `resource` of `group` in `namespace_`.
  void put(std::string_view group, std::string_view resource, std::string namespace_, std::string_view object) {
    registry::Store& store = *stores_.at(std::string(group) + "/" + std::string(resource));
    io_.run(store.create(std::move(namespace_), json::parse(object).as_object(), {}));
  }

  // Runs the plugin's mutating step, then (when the mutation let it through) its validating step, as the chain
  // does; the refusal, if any.
  std::optional<apierrors::Status> admit(Plugin& plugin, Attributes& attributes) {
    try {
      if (!plugin.handles(attributes)) return std::nullopt;
      if (plugin.mutates()) io_.run(plugin.admit(attributes));
      if (plugin.validates()) io_.run(plugin.validate(attributes));
    } catch (const apierrors::ApiError& error) {
      return error.status();
    }
    return std::nullopt;
  }

  static Attributes request(Operation operation, std::string group, std::string resource, std::string kind,
                            std::string namespace_, json::object* object, std::string subresource = "") {
    Attributes attributes;
    attributes.operation = operation;
    attributes.kind = {group, "v1", std::move(kind)};
    attributes.resource = {std::move(group), "v1", std::move(resource)};
    attributes.subresource = std::move(subresource);
    attributes.namespace_ = std::move(namespace_);
    if (object && object->contains("metadata"))
      if (const auto* name = object->at("metadata").as_object().if_contains("name"); name && name->is_string())
        attributes.name = std::string(name->as_string());
    attributes.object = object;
    return attributes;
  }
  static Attributes pod_create(json::object& pod, std::string namespace_ = "ns") {
    return request(Operation::Create, "", "pods", "Pod", std::move(namespace_), &pod);
  }

 protected:
  // Serves `resource` of `group` from a Store over the fixture's backend (for plugins reading more kinds).
  void add(std::string group, std::string resource, std::string kind, bool namespaced) {
    registry::ResourceDefinition definition;
    definition.group = group;
    definition.version = "v1";
    definition.resource = resource;
    definition.kind = kind;
    definition.namespaced = namespaced;
    stores_[group + "/" + resource] =
        std::make_unique<registry::Store>(std::move(definition), std::make_shared<registry::Strategy>(), *backend_);
  }

 private:

  test_support::TempDir dir_{"kapi-pod-admission-test"};
  std::unique_ptr<storage::embedded::Store> backend_;
  std::map<std::string, std::unique_ptr<registry::Store>> stores_;

 protected:
  test_support::IoThread io_;
};

}  // namespace kapi::admission::fixture
