// Ports kube's managedfields/internal managedfields_test.go and fields_test.go.
#include "server/fieldmanager/managed_fields.h"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace kapi::fieldmanager::managed_fields_test {
namespace {

namespace json = boost::json;
namespace sm = structured_merge;

json::object object_with(std::string_view managed_fields) {
  return json::parse(std::string(R"({"metadata":{"name":"x","managedFields":)") + std::string(managed_fields) + "}}")
      .as_object();
}

std::string decode_error(std::string_view managed_fields) {
  try {
    decode_managed_fields(object_with(managed_fields));
  } catch (const std::invalid_argument& error) {
    return error.what();
  }
  return "";
}

std::string encoded(const Managed& managed) {
  json::object object = json::parse(R"({"metadata":{"name":"x"}})").as_object();
  set_managed_fields(object, managed);
  const json::array* entries = managed_fields_of(object);
  return entries == nullptr ? "<none>" : json::serialize(*entries);
}

TEST(ManagedFieldsDecode, HasFieldsType) {
  EXPECT_EQ(decode_error(R"([{"apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:field":{}},"manager":"foo","operation":"Apply"}])"), "");
  EXPECT_EQ(decode_error(R"([{"apiVersion":"v1","fieldsType":"FieldsV2","fieldsV1":{"f:field":{}},"manager":"foo","operation":"Apply"}])"),
            R"(failed to decode managed fields: invalid fieldsType "FieldsV2" in managed fields entry 0)");
  EXPECT_EQ(decode_error(R"([{"apiVersion":"v1","fieldsV1":{"f:field":{}},"manager":"foo","operation":"Apply"}])"),
            "failed to decode managed fields: missing fieldsType in managed fields entry 0");
}

TEST(ManagedFieldsDecode, HasAPIVersion) {
  EXPECT_EQ(decode_error(R"([{"fieldsType":"FieldsV1","fieldsV1":{"f:field":{}},"manager":"foo","operation":"Apply"}])"),
            "failed to decode managed fields: apiVersion must not be empty");
}

TEST(ManagedFieldsDecode, HasOperation) {
  EXPECT_EQ(decode_error(R"([{"apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:field":{}},"manager":"foo","operation":"Invalid"}])"),
            "failed to decode managed fields: operation must be `Apply` or `Update`");
  EXPECT_EQ(decode_error(R"([{"apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:field":{}},"manager":"foo"}])"),
            "failed to decode managed fields: operation must be `Apply` or `Update`");
}

TEST(ManagedFieldsDecode, ChecksTheEntriesInOrder) {
  EXPECT_EQ(decode_error(R"([{"apiVersion":"v1","fieldsType":"FieldsV1","manager":"a","operation":"Update"},
                             {"apiVersion":"v1","manager":"b","operation":"Update"}])"),
            "failed to decode managed fields: missing fieldsType in managed fields entry 1");
}

TEST(ManagedFieldsDecode, MalformedFieldsV1) {
  // fields_test.go's TestFieldsToSetError: a key element that is not JSON fails in jsoniter's ReadObjectCB.
  const std::string error = decode_error(
      R"([{"apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"k:{invalid json}":{"f:name":{},".":{}}},"manager":"foo","operation":"Update","time":"2001-02-03T04:05:06Z"}])");
  EXPECT_EQ(error.rfind("failed to decode managed fields: error decoding versioned set from {foo Update v1 "
                        R"(2001-02-03 04:05:06 +0000 UTC FieldsV1 {"k:{invalid json}":{"f:name":{},".":{}}} }: )"
                        "error decoding set: parsing key as path element: ReadObjectCB: ",
                        0),
            0u)
      << error;
}

TEST(ManagedFieldsDecode, AbsentOrNull) {
  EXPECT_EQ(decode_managed_fields(json::parse(R"({"metadata":{"name":"x"}})").as_object()), Managed());
  EXPECT_EQ(decode_managed_fields(json::parse(R"({"kind":"Pod"})").as_object()), Managed());
  EXPECT_EQ(decode_managed_fields(object_with("null")), Managed());
  EXPECT_EQ(decode_managed_fields(object_with("[]")), Managed());
  EXPECT_EQ(managed_fields_of(object_with("null")), nullptr);
  ASSERT_NE(managed_fields_of(object_with("[]")), nullptr);
}

TEST(ManagedFieldsDecode, FieldsAndTimes) {
  const Managed managed = decode_managed_fields(object_with(R"([
    {"manager":"kubectl","operation":"Apply","apiVersion":"apps/v1","time":"2026-12-01T21:00:00+01:00",
     "fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:replicas":{}}}},
    {"manager":"kube-controller-manager","operation":"Update","apiVersion":"apps/v1","fieldsType":"FieldsV1",
     "fieldsV1":{"f:status":{"f:replicas":{}}},"subresource":"status"},
    {"manager":"empty","operation":"Update","apiVersion":"v1","fieldsType":"FieldsV1"}])"));
  ASSERT_EQ(managed.fields.size(), 3u);
  const std::string applier = R"({"manager":"kubectl","operation":"Apply"})";
  const std::string status = R"({"manager":"kube-controller-manager","operation":"Update","apiVersion":"apps/v1","subresource":"status"})";
  const std::string empty = R"({"manager":"empty","operation":"Update","apiVersion":"v1"})";
  ASSERT_TRUE(managed.fields.count(applier));
  EXPECT_TRUE(managed.fields.at(applier).applied);
  EXPECT_EQ(managed.fields.at(applier).api_version, "apps/v1");
  EXPECT_EQ(managed.fields.at(applier).set.to_fields_v1(), R"({"f:spec":{"f:replicas":{}}})");
  ASSERT_TRUE(managed.fields.count(status));
  EXPECT_FALSE(managed.fields.at(status).applied);
  ASSERT_TRUE(managed.fields.count(empty));
  EXPECT_TRUE(managed.fields.at(empty).set.empty());
  // metav1.Time keeps seconds, in UTC.
  ASSERT_EQ(managed.times.size(), 1u);
  EXPECT_EQ(managed.times.at(applier), "2026-12-01T20:00:00Z");
}

TEST(ManagedFieldsIdentifier, BuildManagerIdentifier) {
  EXPECT_EQ(manager_identifier(json::parse(R"({"apiVersion":"v1","fieldsV1":{"f:apiVersion":{}},"manager":"foo","operation":"Update","time":"2001-02-03T04:05:06Z"})").as_object()),
            R"({"manager":"foo","operation":"Update","apiVersion":"v1"})");
  EXPECT_EQ(manager_identifier(json::parse(R"({"apiVersion":"v1","fieldsV1":{"f:apiVersion":{}},"manager":"foo","operation":"Apply","time":"2001-02-03T04:05:06Z"})").as_object()),
            R"({"manager":"foo","operation":"Apply"})");
  EXPECT_EQ(manager_identifier(json::parse(R"({"apiVersion":"v1","fieldsV1":{"f:apiVersion":{}},"manager":"foo","operation":"Apply","subresource":"scale","time":"2001-02-03T04:05:06Z"})").as_object()),
            R"({"manager":"foo","operation":"Apply","subresource":"scale"})");
  // encoding/json's escaping, and the member order of the Go struct whatever the entry's.
  EXPECT_EQ(manager_identifier(json::parse(R"({"subresource":"status","operation":"Update","manager":"a<b>\"c","fieldsType":"FieldsV1"})").as_object()),
            R"({"manager":"a\u003cb\u003e\"c","operation":"Update","subresource":"status"})");
  EXPECT_EQ(manager_identifier(json::object()), "{}");
}

// managedfields_test.go's TestRoundTripManagedFields, as JSON in the order kube writes the entries.
TEST(ManagedFieldsRoundTrip, DecodeThenEncode) {
  const char* cases[] = {
      R"([{"manager":"foo","operation":"Update","apiVersion":"v1","time":"2001-02-03T04:05:06Z","fieldsType":"FieldsV1","fieldsV1":{"v:3":{"f:alsoPi":{}},"v:3.1415":{"f:pi":{}},"v:false":{"f:notTrue":{}}}},{"manager":"foo","operation":"Update","apiVersion":"v1beta1","time":"2011-12-13T14:15:16Z","fieldsType":"FieldsV1","fieldsV1":{"i:5":{"f:i":{}}}}])",
      R"([{"manager":"foo","operation":"Apply","apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:containers":{"k:{\"name\":\"c\"}":{"f:image":{},"f:name":{}}}}}}])",
      R"([{"manager":"foo","operation":"Update","apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:apiVersion":{},"f:kind":{},"f:metadata":{"f:labels":{"f:app":{}},"f:name":{}},"f:spec":{"f:replicas":{},"f:selector":{"f:matchLabels":{"f:app":{}}},"f:template":{"f:medatada":{"f:labels":{"f:app":{}}},"f:spec":{"f:containers":{"k:{\"name\":\"nginx\"}":{".":{},"f:image":{},"f:name":{},"f:ports":{"i:0":{"f:containerPort":{}}}}}}}}}}])",
      R"([{"manager":"foo","operation":"Apply","apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:allowVolumeExpansion":{},"f:apiVersion":{},"f:kind":{},"f:metadata":{"f:name":{},"f:parameters":{"f:resturl":{},"f:restuser":{},"f:secretName":{},"f:secretNamespace":{}}},"f:provisioner":{}}}])",
      R"([{"manager":"foo","operation":"Update","apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:apiVersion":{},"f:kind":{},"f:metadata":{"f:name":{}},"f:spec":{"f:group":{},"f:names":{"f:kind":{},"f:plural":{},"f:shortNames":{"i:0":{}},"f:singular":{}},"f:scope":{},"f:versions":{"k:{\"name\":\"v1\"}":{"f:name":{},"f:served":{},"f:storage":{}}}}}}])",
      R"([{"manager":"foo","operation":"Update","apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:replicas":{}}},"subresource":"scale"}])",
  };
  for (const char* text : cases) {
    EXPECT_EQ(encoded(decode_managed_fields(object_with(text))), text);
  }
  EXPECT_EQ(encoded(decode_managed_fields(object_with("null"))), "<none>");
}

// Identifiers are read back directly when nothing in them is escaped, and as JSON otherwise: both give the entry.
TEST(ManagedFieldsRoundTrip, ManagerNamesThatNeedEscaping) {
  const char* cases[] = {
      R"([{"manager":"a\"b","operation":"Update","apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:data":{}}}])",
      R"([{"manager":"a<b>","operation":"Update","apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:data":{}},"subresource":"status"}])",
      R"([{"manager":"é\\x","operation":"Apply","apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:data":{}}}])",
      R"([{"operation":"Update","apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:data":{}}}])",
  };
  for (const char* text : cases) {
    const json::array expected = json::parse(text).as_array();
    json::object object = json::parse(R"({"metadata":{"name":"x"}})").as_object();
    set_managed_fields(object, decode_managed_fields(object_with(text)));
    EXPECT_EQ(*managed_fields_of(object), expected) << text;
  }
}

TEST(ManagedFieldsEncode, NoManagersRemovesTheMember) {
  json::object object = object_with(R"([{"manager":"a","operation":"Update","apiVersion":"v1","fieldsType":"FieldsV1"}])");
  set_managed_fields(object, Managed());
  EXPECT_EQ(json::serialize(object), R"({"metadata":{"name":"x"}})");
  json::object bare = json::parse(R"({"kind":"Pod"})").as_object();
  set_managed_fields(bare, Managed());
  EXPECT_EQ(json::serialize(bare), R"({"kind":"Pod"})");
}

TEST(ManagedFieldsEncode, ZeroTimeIsNull) {
  Managed managed;
  const std::string id = R"({"manager":"a","operation":"Update","apiVersion":"v1"})";
  managed.fields[id] = sm::VersionedSet{sm::Set(), "v1", false};
  managed.times[id] = "0001-01-01T00:00:00Z";
  EXPECT_EQ(encoded(managed),
            R"([{"manager":"a","operation":"Update","apiVersion":"v1","time":null,"fieldsType":"FieldsV1","fieldsV1":{}}])");
}

TEST(ManagedFieldsEncode, AppliedSetsTheOperation) {
  Managed managed;
  // An Update manager's fields recorded as applied (as the last-applied migration does) are written as Apply.
  const std::string id = R"({"manager":"kubectl","operation":"Update","apiVersion":"v1"})";
  sm::Set set;
  set.insert({sm::PathElement::field("data"), sm::PathElement::field("k")});
  managed.fields[id] = sm::VersionedSet{set, "v1", true};
  EXPECT_EQ(encoded(managed),
            R"([{"manager":"kubectl","operation":"Apply","apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:data":{"f:k":{}}}}])");
}

// managedfields_test.go's TestSortEncodedManagedFields, through set_managed_fields.
struct SortEntry {
  std::string manager;
  std::string operation;
  std::string time;  // "" for none
  std::string subresource;
  std::string api_version = "";  // tells apart Update managers of one name
};

std::string sorted(const std::vector<SortEntry>& entries) {
  Managed managed;
  for (const SortEntry& entry : entries) {
    json::object fields;
    fields["manager"] = entry.manager;
    fields["operation"] = entry.operation;
    if (!entry.subresource.empty()) fields["subresource"] = entry.subresource;
    if (!entry.api_version.empty()) fields["apiVersion"] = entry.api_version;
    const std::string id = manager_identifier(fields);
    managed.fields[id] = sm::VersionedSet{sm::Set(), entry.api_version, entry.operation == "Apply"};
    if (!entry.time.empty()) managed.times[id] = entry.time;
  }
  json::object object;
  set_managed_fields(object, managed);
  std::string out;
  for (const json::value& entry : *managed_fields_of(object)) {
    const json::object& fields = entry.as_object();
    out += std::string(fields.at("manager").as_string()) + "/" + std::string(fields.at("operation").as_string());
    if (fields.contains("time")) out += "@" + std::string(fields.at("time").as_string()).substr(0, 4);
    if (fields.contains("subresource")) out += ":" + std::string(fields.at("subresource").as_string());
    out += " ";
  }
  return out;
}

TEST(ManagedFieldsEncode, SortEncodedManagedFields) {
  const std::string y2001 = "2001-01-01T01:00:00Z";
  const std::string y2002 = "2002-01-01T01:00:00Z";
  const std::string y2003 = "2003-01-01T01:00:00Z";
  EXPECT_EQ(sorted({{"a", "Apply", "", ""}, {"a", "Update", y2001, ""}}), "a/Apply a/Update@2001 ");
  EXPECT_EQ(sorted({{"a", "Update", y2001, ""}, {"a", "Apply", "", ""}}), "a/Apply a/Update@2001 ");
  EXPECT_EQ(sorted({{"c", "Update", y2001, "", "v2"}, {"a", "Apply", "", ""}, {"c", "Update", y2002, "", "v1"},
                    {"b", "Apply", "", ""}}),
            "a/Apply b/Apply c/Update@2001 c/Update@2002 ");
  EXPECT_EQ(sorted({{"c", "Update", y2001, ""}, {"a", "Apply", "", ""}, {"d", "Update", y2001, ""}, {"b", "Apply", "", ""}}),
            "a/Apply b/Apply c/Update@2001 d/Update@2001 ");
  EXPECT_EQ(sorted({{"c", "Update", y2001, ""}, {"a", "Apply", "", ""}, {"g", "Apply", "", ""}, {"f", "Update", y2002, ""},
                    {"i", "Apply", "", ""}, {"d", "Update", y2002, ""}, {"h", "Apply", "", ""}, {"e", "Update", y2003, ""},
                    {"b", "Apply", "", ""}}),
            "a/Apply b/Apply g/Apply h/Apply i/Apply c/Update@2001 d/Update@2002 f/Update@2002 e/Update@2003 ");
  // Apply entries without a time come before those with one.
  EXPECT_EQ(sorted({{"a", "Apply", y2001, "scale"}, {"b", "Apply", "", ""}, {"a", "Apply", "", ""}}),
            "a/Apply b/Apply a/Apply@2001:scale ");
  EXPECT_EQ(sorted({{"a", "Apply", "", "status"}, {"a", "Apply", "", "scale"}, {"a", "Apply", "", ""}}),
            "a/Apply a/Apply:scale a/Apply:status ");
  // Times compare by their seconds: within one second, by manager.
  EXPECT_EQ(sorted({{"c", "Update", "1999-12-31T00:00:00.000000001Z", ""}, {"a", "Update", "1999-12-31T00:00:00.000000002Z", ""},
                    {"b", "Update", "1999-12-31T00:00:00Z", ""}}),
            "a/Update@1999 b/Update@1999 c/Update@1999 ");
}

// fields_test.go's TestFieldsRoundTrip.
TEST(ManagedFieldsFields, RoundTrip) {
  for (const char* text : {R"({"f:metadata":{".":{},"f:name":{}}})", "{}"}) {
    EXPECT_EQ(sm::Set::from_fields_v1(text).to_fields_v1(), text);
  }
}

}  // namespace
}  // namespace kapi::fieldmanager::managed_fields_test
