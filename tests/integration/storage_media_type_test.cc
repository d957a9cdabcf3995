// --storage-media-type on etcd: a store kube-apiserver 1.32 wrote (objects in its protobuf serialization, "k8s\0"
// and a runtime.Unknown envelope) is served as it is, whatever kapi writes; with application/vnd.kubernetes.protobuf
// kapi writes that form itself, and a create answers what a read of the stored object gives, as kube's does.
// The fixture is built here from the types' protobuf descriptions, field by field, not by kapi's transcoder.
#include "server/schema/catalog.h"
#include "tests/integration/kapi_suite.h"

#include "tests/support/etcd_process.h"
#include "tests/support/temp_dir.h"

#include <google/protobuf/dynamic_message.h>
#include <google/protobuf/reflection.h>

#include <fstream>

namespace kapi::integration {
namespace {

using Headers = std::vector<std::pair<std::string, std::string>>;
namespace pb = google::protobuf;

// A ConfigMap as kube-apiserver stores it: the envelope's prefix, then runtime.Unknown{typeMeta, raw}.
std::string kube_written_config_map(const schema::Catalog& catalog) {
  pb::DynamicMessageFactory factory(&catalog.pool());
  const pb::Descriptor* config_map_type = catalog.kind("", "v1", "ConfigMap");
  std::unique_ptr<pb::Message> config_map(factory.GetPrototype(config_map_type)->New());
  const pb::Reflection* reflection = config_map->GetReflection();
  pb::Message* metadata = reflection->MutableMessage(config_map.get(), config_map_type->FindFieldByName("metadata"));
  const pb::Reflection* meta = metadata->GetReflection();
  const pb::Descriptor* meta_type = metadata->GetDescriptor();
  meta->SetString(metadata, meta_type->FindFieldByName("name"), "from-kube");
  meta->SetString(metadata, meta_type->FindFieldByName("namespace"), "default");
  meta->SetString(metadata, meta_type->FindFieldByName("uid"), "6f1c1c5e-0f6a-4a43-9b7e-2f8c1a0b9d10");
  pb::Message* created = meta->MutableMessage(metadata, meta_type->FindFieldByName("creationTimestamp"));
  created->GetReflection()->SetInt64(created, created->GetDescriptor()->FindFieldByName("seconds"), 1767225600);
  const pb::FieldDescriptor* data = config_map_type->FindFieldByName("data");
  pb::Message* entry = reflection->AddMessage(config_map.get(), data);
  entry->GetReflection()->SetString(entry, entry->GetDescriptor()->FindFieldByName("key"), "greeting");
  entry->GetReflection()->SetString(entry, entry->GetDescriptor()->FindFieldByName("value"), "hello from kube");

  const pb::Descriptor* unknown_type = catalog.message("k8s.io.apimachinery.pkg.runtime.Unknown");
  std::unique_ptr<pb::Message> unknown(factory.GetPrototype(unknown_type)->New());
  const pb::Reflection* envelope = unknown->GetReflection();
  pb::Message* type_meta = envelope->MutableMessage(unknown.get(), unknown_type->FindFieldByName("typeMeta"));
  type_meta->GetReflection()->SetString(type_meta, type_meta->GetDescriptor()->FindFieldByName("apiVersion"), "v1");
  type_meta->GetReflection()->SetString(type_meta, type_meta->GetDescriptor()->FindFieldByName("kind"), "ConfigMap");
  envelope->SetString(unknown.get(), unknown_type->FindFieldByName("raw"), config_map->SerializeAsString());
  envelope->SetString(unknown.get(), unknown_type->FindFieldByName("contentEncoding"), "");
  envelope->SetString(unknown.get(), unknown_type->FindFieldByName("contentType"), "");
  return std::string("k8s\0", 4) + unknown->SerializeAsString();
}

class StorageMediaTypeTest : public ::testing::Test {
 protected:
  KapiOptions options(std::string media_type) {
    return {.extra_flags = {"--etcd-servers=" + etcd_.endpoint(), "--storage-media-type=" + media_type},
            .data_dir = dir_.path() / "data"};
  }

  test_support::EtcdProcess etcd_;
  test_support::TempDir dir_{"kapi-media-type"};
};

TEST_F(StorageMediaTypeTest, ObjectsKubeWroteInProtobufAreServedWhateverKapiWrites) {
  const schema::Catalog catalog = schema::Catalog::builtin();
  const auto fixture = dir_.path() / "from-kube.bin";
  std::ofstream(fixture, std::ios::binary) << kube_written_config_map(catalog);
  const std::string put = etcd_.etcdctl("put /registry/configmaps/default/from-kube < " + fixture.string());
  ASSERT_NE(put.find("OK"), std::string::npos) << put;

  KapiProcess kapi(options("application/json"));
  auto connection = kapi.connect_admin();
  const HttpResponse got = connection.request("GET", "/api/v1/namespaces/default/configmaps/from-kube");
  ASSERT_EQ(got.status, 200) << got.body;
  const boost::json::object object = json_object(got.body);
  EXPECT_EQ(object.at("data").at("greeting"), "hello from kube");
  EXPECT_EQ(object.at("metadata").at("creationTimestamp"), "2026-01-01T00:00:00Z");
  EXPECT_EQ(object.at("metadata").at("uid"), "6f1c1c5e-0f6a-4a43-9b7e-2f8c1a0b9d10");
  const HttpResponse listed = connection.request("GET", "/api/v1/namespaces/default/configmaps");
  EXPECT_NE(listed.body.find("hello from kube"), std::string::npos) << listed.body;

  // Changed through kapi, it is written in kapi's form; a new object too.
  const HttpResponse patched =
      connection.request("PATCH", "/api/v1/namespaces/default/configmaps/from-kube",
                         Headers{{"Content-Type", "application/merge-patch+json"}}, R"({"data":{"more":"x"}})");
  ASSERT_EQ(patched.status, 200) << patched.body;
  EXPECT_TRUE(etcd_.etcdctl("get /registry/configmaps/default/from-kube --print-value-only").starts_with("{"));
}

TEST_F(StorageMediaTypeTest, ProtobufStorageWritesKubesFormAndAnswersWhatItStored) {
  KapiProcess kapi(options("application/vnd.kubernetes.protobuf"));
  auto connection = kapi.connect_admin();
  const HttpResponse created =
      connection.request("POST", "/api/v1/namespaces/default/configmaps", Headers{{"Content-Type", "application/json"}},
                         R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"in-protobuf"},"data":{"a":"b"}})");
  ASSERT_EQ(created.status, 201) << created.body;
  const std::string stored = etcd_.etcdctl("get /registry/configmaps/default/in-protobuf --print-value-only");
  ASSERT_TRUE(stored.starts_with(std::string_view("k8s\0", 4))) << stored;
  EXPECT_NE(stored.find("ConfigMap"), std::string::npos);
  const HttpResponse got = connection.request("GET", "/api/v1/namespaces/default/configmaps/in-protobuf");
  ASSERT_EQ(got.status, 200);
  EXPECT_EQ(json_object(got.body), json_object(created.body)) << "create answered the stored object, read back";
  EXPECT_EQ(json_object(got.body).at("data").at("a"), "b");
  // Every built-in kind: the bootstrap's namespaces too.
  EXPECT_TRUE(etcd_.etcdctl("get /registry/namespaces/default --print-value-only").starts_with(
      std::string_view("k8s\0", 4)));
}

}  // namespace
}  // namespace kapi::integration
