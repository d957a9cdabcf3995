// --storage-media-type on etcd: a store kube-apiserver 1.32 wrote (objects in its protobuf serialization, "k8s\0"
// and a runtime.Unknown envelope) is served as it is, whatever kapi writes; with application/vnd.kubernetes.protobuf
// kapi writes that form itself, and a create answers what a read of the stored object gives, as kube's does. What is
// stored but not served is in kube's form too: the service ranges kube-apiserver allocated from are taken over.
// The fixture is built here from the types' protobuf descriptions, field by field, not by kapi's transcoder.
#include "server/schema/catalog.h"
#include "tests/integration/kapi_suite.h"

#include "tests/support/etcd_process.h"
#include "tests/support/temp_dir.h"

#include <google/protobuf/dynamic_message.h>
#include <google/protobuf/reflection.h>

#include <fstream>

namespace kapi::integration::storage_media_type_test {
namespace {

using Headers = std::vector<std::pair<std::string, std::string>>;
namespace pb = google::protobuf;

// `message` as kube-apiserver stores it: the envelope's prefix, then runtime.Unknown{typeMeta, raw}.
std::string kube_envelope(const schema::Catalog& catalog, const pb::Message& message, const std::string& kind) {
  pb::DynamicMessageFactory factory(&catalog.pool());
  const pb::Descriptor* unknown_type = catalog.message("k8s.io.apimachinery.pkg.runtime.Unknown");
  std::unique_ptr<pb::Message> unknown(factory.GetPrototype(unknown_type)->New());
  const pb::Reflection* envelope = unknown->GetReflection();
  pb::Message* type_meta = envelope->MutableMessage(unknown.get(), unknown_type->FindFieldByName("typeMeta"));
  type_meta->GetReflection()->SetString(type_meta, type_meta->GetDescriptor()->FindFieldByName("apiVersion"), "v1");
  type_meta->GetReflection()->SetString(type_meta, type_meta->GetDescriptor()->FindFieldByName("kind"), kind);
  envelope->SetString(unknown.get(), unknown_type->FindFieldByName("raw"), message.SerializeAsString());
  envelope->SetString(unknown.get(), unknown_type->FindFieldByName("contentEncoding"), "");
  envelope->SetString(unknown.get(), unknown_type->FindFieldByName("contentType"), "");
  return std::string("k8s\0", 4) + unknown->SerializeAsString();
}

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
  return kube_envelope(catalog, *config_map, "ConfigMap");
}

// The service IP range as kube's allocator/storage.Etcd writes it: a RangeAllocation whose data is the bitmap's
// big.Int.Bytes().
std::string kube_written_range(const schema::Catalog& catalog, const std::string& range, const std::string& bitmap) {
  pb::DynamicMessageFactory factory(&catalog.pool());
  const pb::Descriptor* type = catalog.kind("", "v1", "RangeAllocation");
  std::unique_ptr<pb::Message> allocation(factory.GetPrototype(type)->New());
  allocation->GetReflection()->MutableMessage(allocation.get(), type->FindFieldByName("metadata"));
  allocation->GetReflection()->SetString(allocation.get(), type->FindFieldByName("range"), range);
  allocation->GetReflection()->SetString(allocation.get(), type->FindFieldByName("data"), bitmap);
  return kube_envelope(catalog, *allocation, "RangeAllocation");
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

TEST_F(StorageMediaTypeTest, ServiceRangesAndServerLeasesAreKeptInKubesForm) {
  // kube-apiserver left 10.0.0.20 allocated (offset 19: the range's first address is offset 0), with no Service
  // holding it yet: the repair keeps such an address for a few passes, as one may be in flight.
  const schema::Catalog catalog = schema::Catalog::builtin();
  const auto fixture = dir_.path() / "serviceips.bin";
  const std::string bit_19("\x08\x00\x00", 3);
  std::ofstream(fixture, std::ios::binary) << kube_written_range(catalog, "10.0.0.0/24", bit_19);
  const std::string put = etcd_.etcdctl("put /registry/ranges/serviceips < " + fixture.string());
  ASSERT_NE(put.find("OK"), std::string::npos) << put;

  KapiOptions flags = options("application/vnd.kubernetes.protobuf");
  flags.extra_flags.push_back("--advertise-address=10.255.0.1");
  KapiProcess kapi(flags);
  auto connection = kapi.connect_admin();
  auto service = [](std::string name, std::string cluster_ip) {
    return R"({"apiVersion":"v1","kind":"Service","metadata":{"name":")" + name + R"("},"spec":{)" +
           (cluster_ip.empty() ? "" : R"("clusterIP":")" + cluster_ip + R"(",)") +
           R"("ports":[{"port":80}]}})";
  };
  const Headers json_body{{"Content-Type", "application/json"}};
  const HttpResponse taken = connection.request("POST", "/api/v1/namespaces/default/services", json_body,
                                                service("wants-kubes-address", "10.0.0.20"));
  EXPECT_EQ(taken.status, 422) << taken.body;
  EXPECT_NE(taken.body.find("provided IP is already allocated"), std::string::npos) << taken.body;
  const HttpResponse created =
      connection.request("POST", "/api/v1/namespaces/default/services", json_body, service("any-address", ""));
  ASSERT_EQ(created.status, 201) << created.body;

  // Written back as kube writes them: the range (now with the kubernetes Service's and the new one's addresses)
  // and this server's lease, an Endpoints.
  const std::string range = etcd_.etcdctl("get /registry/ranges/serviceips --print-value-only");
  EXPECT_TRUE(range.starts_with(std::string_view("k8s\0", 4))) << range;
  EXPECT_NE(range.find("RangeAllocation"), std::string::npos) << range;
  EXPECT_NE(range.find("10.0.0.0/24"), std::string::npos) << range;
  const std::string ports = etcd_.etcdctl("get /registry/ranges/servicenodeports --print-value-only");
  EXPECT_TRUE(ports.starts_with(std::string_view("k8s\0", 4))) << ports;
  const std::string lease = etcd_.etcdctl("get /registry/masterleases/10.255.0.1 --print-value-only");
  EXPECT_TRUE(lease.starts_with(std::string_view("k8s\0", 4))) << lease;
  EXPECT_NE(lease.find("Endpoints"), std::string::npos) << lease;
  EXPECT_NE(lease.find("10.255.0.1"), std::string::npos) << lease;
}

}  // namespace
}  // namespace kapi::integration::storage_media_type_test
