// schemaconv's rules for markers no built-in kind combines, over a catalog made for the test: a merge patch
// strategy without a list type (with and without a merge key), retainKeys, a field-level +mapType beside a struct
// reference, and the marker values kube refuses to convert.
#include "server/fieldmanager/type_converter.h"

#include <google/protobuf/descriptor.pb.h>
#include <gtest/gtest.h>

#include <cctype>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace kapi::fieldmanager::type_converter_markers_test {
namespace {

namespace pb = google::protobuf;
namespace sm = structured_merge;
using sm::ElementRelationship;

struct Field {
  std::string name;
  pb::FieldDescriptorProto::Type type;
  std::string message;  // the message type's name in the test package, or "map" for map<string, string>
  bool repeated = false;
  std::string comment;  // marker lines
};

// A one-file catalog of package k8s.io.api.test.v1 whose fields carry `comment` as their leading comments.
schema::Catalog test_catalog(const std::vector<std::pair<std::string, std::vector<Field>>>& messages) {
  pb::FileDescriptorProto file;
  file.set_name("test/v1/test.proto");
  file.set_package("k8s.io.api.test.v1");
  file.set_syntax("proto3");
  for (std::size_t m = 0; m < messages.size(); ++m) {
    pb::DescriptorProto* message = file.add_message_type();
    message->set_name(messages[m].first);
    int number = 0;
    for (const Field& spec : messages[m].second) {
      pb::FieldDescriptorProto* field = message->add_field();
      field->set_name(spec.name);
      field->set_number(++number);
      field->set_type(spec.type);
      field->set_label(spec.repeated || spec.message == "map" ? pb::FieldDescriptorProto::LABEL_REPEATED
                                                              : pb::FieldDescriptorProto::LABEL_OPTIONAL);
      if (spec.message == "map") {
        // protobuf's own name for a map field's entries: "labels" → "LabelsEntry".
        std::string entry_name = spec.name + "Entry";
        entry_name[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(entry_name[0])));
        pb::DescriptorProto* entry = message->add_nested_type();
        entry->set_name(entry_name);
        entry->mutable_options()->set_map_entry(true);
        for (const char* part : {"key", "value"}) {
          pb::FieldDescriptorProto* member = entry->add_field();
          member->set_name(part);
          member->set_number(entry->field_size());
          member->set_type(pb::FieldDescriptorProto::TYPE_STRING);
          member->set_label(pb::FieldDescriptorProto::LABEL_OPTIONAL);
        }
        field->set_type(pb::FieldDescriptorProto::TYPE_MESSAGE);
        field->set_type_name("." + file.package() + "." + messages[m].first + "." + entry_name);
      } else if (!spec.message.empty()) {
        field->set_type_name("." + file.package() + "." + spec.message);
      }
      if (!spec.comment.empty()) {
        pb::SourceCodeInfo::Location* location = file.mutable_source_code_info()->add_location();
        for (int step : {4, static_cast<int>(m), 2, number - 1}) location->add_path(step);
        for (int span : {0, 0, 1}) location->add_span(span);
        location->set_leading_comments(spec.comment);
      }
    }
  }
  pb::FileDescriptorSet set;
  *set.add_file() = file;
  return schema::Catalog::from_descriptor_set(set.SerializeAsString());
}

constexpr auto kString = pb::FieldDescriptorProto::TYPE_STRING;
constexpr auto kInt = pb::FieldDescriptorProto::TYPE_INT32;
constexpr auto kMessage = pb::FieldDescriptorProto::TYPE_MESSAGE;

const schema::Catalog& catalog() {
  static const schema::Catalog kCatalog = test_catalog({
      {"Item", {{"name", kString, ""}, {"port", kInt, ""}}},
      {"Ref", {{"name", kString, ""}}},
      {"Holder",
       {{"merged", kMessage, "Item", true, " +patchStrategy=merge\n +patchMergeKey=name\n"},
        {"mergedSet", kString, "", true, " +patchStrategy=merge\n"},
        {"retained", kMessage, "Item", true, " +patchStrategy=retainKeys\n"},
        {"mergedRetained", kMessage, "Item", true, " +patchStrategy=merge,retainKeys\n +patchMergeKey=name\n"},
        {"plain", kMessage, "Item", true, ""},
        {"atomicRef", kMessage, "Ref", false, " +mapType=atomic\n"},
        {"ref", kMessage, "Ref", false, ""},
        {"labels", kString, "map", false, " +mapType=granular\n"},
        {"selector", kString, "map", false, " +mapType=atomic\n"}}},
  });
  return kCatalog;
}

sm::TypeRef holder(const sm::Schema& schema) {
  sm::TypeRef type = kind_type(schema, catalog(), "test", "v1", "Holder");
  EXPECT_NE(type, nullptr);
  return type;
}

TEST(TypeConverterMarkersTest, MergePatchStrategyWithoutListType) {
  auto schema = schema_from_catalog(catalog());
  sm::TypeRef type = holder(*schema);
  // With a merge key: a map list by it.
  sm::TypeRef merged = type->member_type("merged");
  EXPECT_EQ(merged->list_relationship, ElementRelationship::kAssociative);
  EXPECT_EQ(merged->keys, std::vector<std::string>{"name"});
  // Without one: a set.
  sm::TypeRef set = type->member_type("mergedSet");
  EXPECT_EQ(set->list_relationship, ElementRelationship::kAssociative);
  EXPECT_TRUE(set->keys.empty());
  // "merge,retainKeys" merges too; "retainKeys" alone and no strategy are atomic.
  EXPECT_EQ(type->member_type("mergedRetained")->list_relationship, ElementRelationship::kAssociative);
  EXPECT_EQ(type->member_type("mergedRetained")->keys, std::vector<std::string>{"name"});
  EXPECT_EQ(type->member_type("retained")->list_relationship, ElementRelationship::kAtomic);
  EXPECT_EQ(type->member_type("plain")->list_relationship, ElementRelationship::kAtomic);
}

TEST(TypeConverterMarkersTest, MapTypeBesideAReferenceOverridesTheStructForThatFieldOnly) {
  auto schema = schema_from_catalog(catalog());
  sm::TypeRef type = holder(*schema);
  sm::TypeRef named = schema->find("io.k8s.api.test.v1.Ref");
  ASSERT_NE(named, nullptr);
  EXPECT_EQ(type->member_type("ref"), named);
  EXPECT_EQ(named->map_relationship, ElementRelationship::kSeparable);
  sm::TypeRef atomic = type->member_type("atomicRef");
  ASSERT_NE(atomic, nullptr);
  EXPECT_EQ(atomic->map_relationship, ElementRelationship::kAtomic);
  ASSERT_EQ(atomic->fields.size(), 1u);
  EXPECT_EQ(atomic->fields[0].name, "name");
  EXPECT_EQ(type->member_type("labels")->map_relationship, ElementRelationship::kSeparable);
  EXPECT_EQ(type->member_type("selector")->map_relationship, ElementRelationship::kAtomic);
}

TEST(TypeConverterMarkersTest, RefusesWhatSchemaconvRefuses) {
  auto refuses = [](std::string comment, std::string expected) {
    const schema::Catalog bad = test_catalog({{"Holder", {{"items", kString, "", true, std::move(comment)}}}});
    try {
      schema_from_catalog(bad);
      ADD_FAILURE() << "no error for " << expected;
    } catch (const std::invalid_argument& error) {
      EXPECT_EQ(std::string(error.what()), "failed to convert models to schema: inlined in io.k8s.api.test.v1.Holder: " + expected);
    }
  };
  refuses(" +listType=map\n", "missing map keys");
  refuses(" +listType=bag\n", "unknown list type bag");
  refuses(" +patchStrategy=replace\n", "unknown patch strategy replace");
}

}  // namespace
}  // namespace kapi::fieldmanager::type_converter_markers_test
