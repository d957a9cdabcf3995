#pragma once
// What the unit tests of kube's admission plugins share: real registry Stores over the embedded backend for the
// resources a plugin reads, a PluginContext that finds them, Attributes built by hand, and a way to run a
// plugin's admit and validate steps to completion.
#include "server/admission/attributes.h"
#include "server/admission/plugin.h"
#include "server/apierrors/errors.h"
#include "server/registry/object_meta.h"
#include "server/registry/store.h"
#include "storage/embedded/store.h"
#include "tests/support/io_thread.h"
#include "tests/support/temp_dir.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <map>
#include <memory>
#include <string>

namespace kapi::admission::testing {

namespace json = boost::json;

class PlainStrategy final : public registry::Strategy {};

class PluginFixture : public ::testing::Test {
 protected:
  PluginFixture() {
    storage::embedded::Options options;
    options.data_dir = dir_.path() / "data";
    backend_ = storage::embedded::Store::open(std::move(options));
  }

  // Serves `group`/`resource` to the plugins made after this call.
  registry::Store& serve(std::string group, std::string resource, std::string kind, bool namespaced) {
    registry::ResourceDefinition definition{.group = group, .version = "v1", .resource = resource, .kind = kind,
                                            .singular = resource, .namespaced = namespaced};
    auto store = std::make_unique<registry::Store>(std::move(definition), strategy_, *backend_);
    registry::Store& served = *store;
    stores_[group + "/" + resource] = std::move(store);
    return served;
  }

  PluginContext context(const authorization::Authorizer* authorizer = nullptr) {
    PluginContext context;
    context.stores = [this](std::string_view group, std::string_view resource) -> registry::Store* {
      auto found = stores_.find(std::string(group) + "/" + std::string(resource));
      return found == stores_.end() ? nullptr : found->second.get();
    };
    context.authorizer = authorizer;
    return context;
  }

  void put(registry::Store& store, std::string namespace_, json::object object) {
    io_.run(store.create(std::move(namespace_), std::move(object), registry::WriteOptions{}));
  }

  // Stores `object` as it is, its metadata included (the Store would set creationTimestamp itself).
  void put_as_is(registry::Store& store, const std::string& namespace_, const json::object& object) {
    const std::string key = store.key(namespace_, registry::meta_string(object, "name"));
    io_.run(backend_->create(key, json::serialize(object), storage::WriteOptions{}));
  }

  static Attributes attributes(Operation operation, std::string group, std::string resource, std::string kind,
                               std::string namespace_, json::object* object, const json::object* old = nullptr) {
    Attributes attributes;
    attributes.operation = operation;
    attributes.kind = {group, "v1", kind};
    attributes.resource = {group, "v1", resource};
    attributes.namespace_ = std::move(namespace_);
    attributes.object = object;
    attributes.old_object = old;
    if (object) attributes.name = std::string(registry::meta_string(*object, "name"));
    return attributes;
  }

  // Runs the plugin's mutating and then validating step, as the chain does for a request it handles.
  void admit(Plugin& plugin, Attributes& attributes, std::chrono::milliseconds timeout = std::chrono::seconds(20)) {
    if (!plugin.handles(attributes)) return;
    if (plugin.mutates()) io_.run(plugin.admit(attributes), timeout);
    if (plugin.validates()) io_.run(plugin.validate(attributes), timeout);
  }

  // The refusal's Status; a test failure when the plugin lets the request through.
  apierrors::Status refusal(Plugin& plugin, Attributes& attributes,
                           std::chrono::milliseconds timeout = std::chrono::seconds(20)) {
    try {
      admit(plugin, attributes, timeout);
    } catch (const apierrors::ApiError& error) {
      return error.status();
    }
    ADD_FAILURE() << "the plugin let the request through";
    return {};
  }

  static json::object parse(std::string_view text) { return registry::parse_json(text).as_object(); }

  test_support::TempDir dir_{"kapi-admission-plugin"};
  test_support::IoThread io_;
  std::unique_ptr<storage::embedded::Store> backend_;
  std::shared_ptr<PlainStrategy> strategy_ = std::make_shared<PlainStrategy>();
  std::map<std::string, std::unique_ptr<registry::Store>> stores_;
};

}  // namespace kapi::admission::testing
