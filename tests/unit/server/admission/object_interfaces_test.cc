// What admission knows of a resource's versions: kube's equivalent resources (by storage prefix, with the kinds
// of subresources), conversions through the storage version, and VersionedAttributes' views of the request.
#include "server/admission/object_interfaces.h"
#include "server/admission/versioned_attributes.h"
#include "server/apierrors/errors.h"
#include "tests/unit/server/admission/two_versions.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace kapi::admission::object_interfaces_test {
namespace {

namespace json = boost::json;

// Gizmos at v1 (kept as v2, v1's spec.size is v2's spec.count) and v2; Widgets at v1 alone, stored elsewhere.
ObjectInterfaces versions() {
  TwoVersions gizmos = two_versions("gizmos", "Gizmo", "size", "count");
  gizmos.v1.subresources = {{"status", {"example.com", "v1", "Gizmo"}}, {"scale", {"autoscaling", "v1", "Scale"}}};
  gizmos.v1.defaults = [](json::object& object) { object.emplace("defaulted", true); };
  gizmos.v2.subresources = {{"status", {"example.com", "v2", "Gizmo"}}};
  ObjectInterfaces interfaces;
  interfaces.add(std::move(gizmos.v1));
  interfaces.add(std::move(gizmos.v2));
  interfaces.add({.resource = {"example.com", "v1", "widgets"},
                  .kind = {"example.com", "v1", "Widget"},
                  .storage = "/registry/example.com/widgets/",
                  .subresources = {},
                  .to_storage = {},
                  .from_storage = {},
                  .defaults = {}});
  return interfaces;
}

TEST(ObjectInterfacesTest, EquivalentsShareAStoragePrefixAndNameEachSubresourcesKind) {
  const ObjectInterfaces interfaces = versions();
  const auto gizmos = interfaces.equivalents({"example.com", "v2", "gizmos"}, "");
  ASSERT_EQ(gizmos.size(), 2u);
  EXPECT_EQ(gizmos[0].resource, (GroupVersionResource{"example.com", "v1", "gizmos"}));
  EXPECT_EQ(gizmos[1].kind, (GroupVersionKind{"example.com", "v2", "Gizmo"}));
  // Only the versions that serve the subresource, each with the subresource's kind.
  const auto scales = interfaces.equivalents({"example.com", "v1", "gizmos"}, "scale");
  ASSERT_EQ(scales.size(), 1u);
  EXPECT_EQ(scales[0].kind, (GroupVersionKind{"autoscaling", "v1", "Scale"}));
  EXPECT_EQ(interfaces.equivalents({"example.com", "v1", "widgets"}, "").size(), 1u);
  EXPECT_TRUE(interfaces.equivalents({"example.com", "v1", "sprockets"}, "").empty());
}

TEST(ObjectInterfacesTest, ConvertsThroughTheStorageVersionAndDefaultsByKind) {
  const ObjectInterfaces interfaces = versions();
  const GroupVersionKind v1{"example.com", "v1", "Gizmo"}, v2{"example.com", "v2", "Gizmo"};
  json::object object{{"apiVersion", "example.com/v1"}, {"spec", json::object{{"size", 3}}}};
  json::object stored = interfaces.convert(object, v1, v2);
  EXPECT_EQ(stored, (json::object{{"apiVersion", "example.com/v2"}, {"spec", json::object{{"count", 3}}}}));
  EXPECT_EQ(interfaces.convert(stored, v2, v1), object);
  try {
    interfaces.convert(object, v1, {"example.com", "v1", "Widget"});
    FAIL() << "converted between resources";
  } catch (const std::runtime_error& error) {
    EXPECT_STREQ(error.what(), "no kind \"Widget\" is registered for version \"example.com/v1\"");
  }
  interfaces.default_object(object, v1);
  EXPECT_TRUE(object.contains("defaulted"));
  interfaces.default_object(stored, {"autoscaling", "v1", "Scale"});  // not registered: left as it is
  EXPECT_FALSE(stored.contains("defaulted"));
}

TEST(VersionedAttributesTest, AChangedViewGoesBackToTheRequestBeforeAnotherVersionSeesIt) {
  const ObjectInterfaces interfaces = versions();
  json::object object{{"apiVersion", "example.com/v1"}, {"spec", json::object{{"size", 3}}}};
  const json::object old{{"apiVersion", "example.com/v1"}, {"spec", json::object{{"size", 1}}}};
  Attributes request;
  request.kind = {"example.com", "v1", "Gizmo"};
  request.object = &object;
  request.old_object = &old;
  request.object_interfaces = &interfaces;
  VersionedAttributes versioned(request);
  EXPECT_EQ(&versioned.as(request.kind), &request);
  const Attributes& v2 = versioned.as({"example.com", "v2", "Gizmo"});
  EXPECT_EQ(*v2.object, (json::object{{"apiVersion", "example.com/v2"}, {"spec", json::object{{"count", 3}}}}));
  EXPECT_EQ(*v2.old_object, (json::object{{"apiVersion", "example.com/v2"}, {"spec", json::object{{"count", 1}}}}));
  EXPECT_EQ(v2.kind, request.kind);  // the request's kind stays the request's
  (*v2.object)["spec"].as_object()["count"] = 5;
  versioned.changed(v2);
  EXPECT_EQ(object.at("spec").at("size"), 3);  // not yet
  versioned.as(request.kind);
  EXPECT_EQ(object, (json::object{{"apiVersion", "example.com/v1"}, {"spec", json::object{{"size", 5}}}}));
  // A change of the request's own object makes the next view afresh.
  object["spec"].as_object()["size"] = 8;
  versioned.changed(request);
  EXPECT_EQ(versioned.as({"example.com", "v2", "Gizmo"}).object->at("spec").at("count"), 8);

  // Without a way to convert, the request is refused with an internal error.
  request.object_interfaces = nullptr;
  VersionedAttributes unconvertible(request);
  try {
    unconvertible.as({"example.com", "v2", "Gizmo"});
    FAIL() << "converted without conversions";
  } catch (const apierrors::ApiError& error) {
    EXPECT_EQ(error.status().code, 500);
  }
}

}  // namespace
}  // namespace kapi::admission::object_interfaces_test
