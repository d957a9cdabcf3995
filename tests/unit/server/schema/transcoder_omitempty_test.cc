// Protobuf → JSON drops and keeps fields as Go does: the bodies below are built field by field as kubectl's
// gogo marshaller writes them (every non-pointer field, zero or not; pointers only when set), and the expected
// JSON is what kube-apiserver decodes them to (encoding/json with omitempty), as `kubectl create ... --dry-run=client
// -o json` prints the same objects.
#include "server/schema/transcoder.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <cstdint>
#include <string>
#include <string_view>

namespace kapi::schema::transcoder_omitempty_test {
namespace {

namespace json = boost::json;

const Catalog& builtin() {
  static const Catalog catalog = Catalog::builtin();
  return catalog;
}

// Wire-format builders: a length-delimited field, a string field, a varint field.
void put_varint(std::string& out, std::uint64_t value) {
  while (value >= 0x80) {
    out += static_cast<char>((value & 0x7F) | 0x80);
    value >>= 7;
  }
  out += static_cast<char>(value);
}
std::string bytes_field(int number, std::string_view body) {
  std::string out;
  put_varint(out, static_cast<std::uint64_t>(number) << 3 | 2);
  put_varint(out, body.size());
  out.append(body);
  return out;
}
std::string varint_field(int number, std::uint64_t value) {
  std::string out;
  put_varint(out, static_cast<std::uint64_t>(number) << 3);
  put_varint(out, value);
  return out;
}
std::string map_entry(int number, std::string_view key, std::string_view value) {
  return bytes_field(number, bytes_field(1, key) + bytes_field(2, value));
}

// ObjectMeta as gogo writes a client-side object: every string, generation 0 and the zero creationTimestamp (an
// empty Time message), then the labels.
std::string object_meta(std::string_view name, std::string_view labels = {}) {
  return bytes_field(1, name) + bytes_field(2, "") + bytes_field(3, "") + bytes_field(4, "") + bytes_field(5, "") +
         bytes_field(6, "") + varint_field(7, 0) + bytes_field(8, "") + std::string(labels);
}

std::string envelope(std::string_view api_version, std::string_view kind, std::string raw) {
  return write_envelope({{std::string(api_version), std::string(kind)}, std::move(raw)});
}

std::string decoded(const std::string& body) { return json::serialize(Transcoder(builtin()).decode(body)); }

TEST(TranscoderOmitemptyTest, ConfigMapFromKubectlHasNoEmptyMetadataStrings) {
  // kubectl create configmap x --from-literal=a=b
  std::string body = envelope("v1", "ConfigMap", bytes_field(1, object_meta("x")) + map_entry(2, "a", "b"));
  EXPECT_EQ(decoded(body),
            R"({"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"x","creationTimestamp":null},)"
            R"("data":{"a":"b"}})");
}

TEST(TranscoderOmitemptyTest, NamespaceKeepsItsEmptySpecAndStatusStructs) {
  // kubectl create namespace x: spec and status are Go structs, written (empty) by gogo and by encoding/json.
  std::string body = envelope("v1", "Namespace",
                              bytes_field(1, object_meta("x")) + bytes_field(2, "") + bytes_field(3, bytes_field(1, "")));
  EXPECT_EQ(decoded(body),
            R"({"kind":"Namespace","apiVersion":"v1","metadata":{"name":"x","creationTimestamp":null},)"
            R"("spec":{},"status":{}})");
  // A client that leaves the structs out (they are optional on the wire) gets the same JSON, as Go would.
  EXPECT_EQ(decoded(envelope("v1", "Namespace", bytes_field(1, bytes_field(1, "x")))),
            R"({"kind":"Namespace","apiVersion":"v1","metadata":{"name":"x","creationTimestamp":null},)"
            R"("spec":{},"status":{}})");
}

TEST(TranscoderOmitemptyTest, DeploymentKeepsZeroReplicasAndDropsZeroScalars) {
  // kubectl create deployment web --image=nginx --replicas=0
  const std::string labels = map_entry(11, "app", "web");
  const std::string container = bytes_field(1, "nginx") + bytes_field(2, "nginx") + bytes_field(5, "") +
                                bytes_field(8, "") + bytes_field(13, "") + bytes_field(14, "") + varint_field(16, 0) +
                                varint_field(17, 0) + varint_field(18, 0) + bytes_field(20, "");
  std::string pod_spec = bytes_field(2, container) + bytes_field(3, "") + bytes_field(6, "") + bytes_field(8, "") +
                         bytes_field(9, "") + bytes_field(10, "") + varint_field(11, 0) + varint_field(12, 0) +
                         varint_field(13, 0) + bytes_field(16, "") + bytes_field(17, "") + bytes_field(19, "") +
                         bytes_field(24, "");
  std::string template_spec = bytes_field(1, object_meta("", labels)) + bytes_field(2, pod_spec);
  std::string selector = map_entry(1, "app", "web");
  std::string spec = varint_field(1, 0) + bytes_field(2, selector) + bytes_field(3, template_spec) +
                     bytes_field(4, bytes_field(1, "")) + varint_field(5, 0) + varint_field(7, 0);
  std::string status = varint_field(1, 0) + varint_field(2, 0) + varint_field(3, 0) + varint_field(4, 0) +
                       varint_field(5, 0) + varint_field(7, 0);
  std::string body = envelope("apps/v1", "Deployment",
                              bytes_field(1, object_meta("web", labels)) + bytes_field(2, spec) + bytes_field(3, status));
  EXPECT_EQ(decoded(body),
            R"({"kind":"Deployment","apiVersion":"apps/v1","metadata":{"name":"web","creationTimestamp":null,)"
            R"("labels":{"app":"web"}},"spec":{"replicas":0,"selector":{"matchLabels":{"app":"web"}},)"
            R"("template":{"metadata":{"creationTimestamp":null,"labels":{"app":"web"}},"spec":{"containers":)"
            R"([{"name":"nginx","image":"nginx","resources":{}}]}},"strategy":{}},"status":{}})");
}

TEST(TranscoderOmitemptyTest, ServiceKeepsItsPortsAndTargetPortStruct) {
  // kubectl create service clusterip my-svc --tcp=5678:8080
  const std::string labels = map_entry(11, "app", "my-svc");
  std::string target_port = varint_field(1, 0) + varint_field(2, 8080) + bytes_field(3, "");
  std::string port = bytes_field(1, "5678-8080") + bytes_field(2, "TCP") + varint_field(3, 5678) +
                     bytes_field(4, target_port) + varint_field(5, 0);
  std::string spec = bytes_field(1, port) + map_entry(2, "app", "my-svc") + bytes_field(3, "") +
                     bytes_field(4, "ClusterIP") + bytes_field(7, "") + bytes_field(8, "") + bytes_field(10, "") +
                     bytes_field(11, "") + varint_field(12, 0) + varint_field(13, 0);
  std::string body = envelope("v1", "Service",
                              bytes_field(1, object_meta("my-svc", labels)) + bytes_field(2, spec) +
                                  bytes_field(3, bytes_field(1, "")));
  EXPECT_EQ(decoded(body),
            R"({"kind":"Service","apiVersion":"v1","metadata":{"name":"my-svc","creationTimestamp":null,)"
            R"("labels":{"app":"my-svc"}},"spec":{"ports":[{"name":"5678-8080","protocol":"TCP","port":5678,)"
            R"("targetPort":8080}],"selector":{"app":"my-svc"},"type":"ClusterIP"},"status":{"loadBalancer":{}}})");
  // An unset IntOrString struct is Go's zero IntOrString, the number 0.
  std::string no_target = bytes_field(1, "p") + varint_field(3, 80);
  EXPECT_EQ(decoded(envelope("v1", "Service", bytes_field(2, bytes_field(1, no_target)))),
            R"({"kind":"Service","apiVersion":"v1","metadata":{"creationTimestamp":null},"spec":{"ports":)"
            R"([{"name":"p","port":80,"targetPort":0}]},"status":{"loadBalancer":{}}})");
}

TEST(TranscoderOmitemptyTest, PointersKeepTheirZeroValues) {
  // spec.storageClassName = "" (pointer: "no class") and volumeMode unset; status.phase "" is dropped.
  std::string spec = bytes_field(5, "") + bytes_field(2, "");
  std::string body = envelope("v1", "PersistentVolumeClaim",
                              bytes_field(1, bytes_field(1, "claim")) + bytes_field(2, spec) +
                                  bytes_field(3, bytes_field(1, "")));
  EXPECT_EQ(decoded(body),
            R"({"kind":"PersistentVolumeClaim","apiVersion":"v1","metadata":{"name":"claim",)"
            R"("creationTimestamp":null},"spec":{"resources":{},"storageClassName":""},"status":{}})");
  // *bool false and *int64 0 stay; a plain bool false goes.
  std::string secret = bytes_field(1, bytes_field(1, "s")) + varint_field(5, 0) + bytes_field(3, "");
  EXPECT_EQ(decoded(envelope("v1", "Secret", secret)),
            R"({"kind":"Secret","apiVersion":"v1","metadata":{"name":"s","creationTimestamp":null},"immutable":false})");
  std::string options = varint_field(1, 0) + varint_field(3, 0) + bytes_field(4, "Background");
  EXPECT_EQ(decoded(envelope("v1", "DeleteOptions", options)),
            R"({"kind":"DeleteOptions","apiVersion":"v1","gracePeriodSeconds":0,"orphanDependents":false,)"
            R"("propagationPolicy":"Background"})");
}

TEST(TranscoderOmitemptyTest, FieldsWithoutOmitemptyAreAlwaysWritten) {
  // OwnerReference's four identifiers and a Pod's containers have no omitempty: zero or unset, they are written
  // (an unset list as null); its *bool controller only when set.
  std::string owner = bytes_field(1, "ReplicaSet") + bytes_field(3, "rs") + varint_field(6, 1);
  std::string meta = bytes_field(1, "p") + bytes_field(13, owner);
  EXPECT_EQ(decoded(envelope("v1", "Pod", bytes_field(1, meta))),
            R"({"kind":"Pod","apiVersion":"v1","metadata":{"name":"p","creationTimestamp":null,)"
            R"("ownerReferences":[{"apiVersion":"","kind":"ReplicaSet","name":"rs","uid":"","controller":true}]},)"
            R"("spec":{"containers":null},"status":{}})");
  // An Event's reportingComponent and reportingInstance are written empty; eventTime, a struct, as null.
  std::string event = bytes_field(1, bytes_field(1, "e")) + bytes_field(3, "Started") + bytes_field(9, "Normal");
  EXPECT_EQ(decoded(envelope("v1", "Event", event)),
            R"({"kind":"Event","apiVersion":"v1","metadata":{"name":"e","creationTimestamp":null},)"
            R"("involvedObject":{},"reason":"Started","source":{},"firstTimestamp":null,"lastTimestamp":null,)"
            R"("type":"Normal","eventTime":null,"reportingComponent":"","reportingInstance":""})");
  // Status counters without omitempty keep their zeros.
  std::string status = varint_field(2, 0) + varint_field(3, 0);
  EXPECT_EQ(decoded(envelope("apps/v1", "ReplicaSet", bytes_field(1, bytes_field(1, "r")) + bytes_field(3, status))),
            R"({"kind":"ReplicaSet","apiVersion":"apps/v1","metadata":{"name":"r","creationTimestamp":null},)"
            R"("spec":{"selector":null,"template":{"metadata":{"creationTimestamp":null},"spec":{"containers":null}}},)"
            R"("status":{"replicas":0}})");
}

TEST(TranscoderOmitemptyTest, EmptyListsAndMapsAreDropped) {
  // A packed list with no element is a nil slice; a list without omitempty is then null.
  const auto* context = builtin().message("k8s.io.api.core.v1.PodSecurityContext");
  ASSERT_NE(context, nullptr);
  EXPECT_EQ(json::serialize(Transcoder(builtin()).to_json(*context, bytes_field(4, ""))), "{}");
  EXPECT_EQ(decoded(envelope("v1", "ConfigMapList", bytes_field(1, ""))),
            R"({"kind":"ConfigMapList","apiVersion":"v1","metadata":{},"items":null})");
}

// What kube-apiserver stores goes to protobuf and back unchanged: the JSON → protobuf direction writes what the JSON
// has, pointers at zero included, and the way back keeps exactly that.
TEST(TranscoderOmitemptyTest, StoredObjectsRoundTrip) {
  Transcoder transcoder(builtin());
  const char* stored[] = {
      R"({"kind":"Deployment","apiVersion":"apps/v1","metadata":{"name":"web","namespace":"default","uid":"u",)"
      R"("resourceVersion":"5","generation":1,"creationTimestamp":"2024-05-01T10:11:12Z","labels":{"app":"web"},)"
      R"("annotations":{"deployment.kubernetes.io/revision":"1"}},"spec":{"replicas":0,"selector":{"matchLabels":)"
      R"({"app":"web"}},"template":{"metadata":{"creationTimestamp":null,"labels":{"app":"web"}},"spec":)"
      R"({"containers":[{"name":"nginx","image":"nginx","resources":{},"terminationMessagePath":"/dev/termination-log",)"
      R"("terminationMessagePolicy":"File","imagePullPolicy":"Always"}],"restartPolicy":"Always",)"
      R"("terminationGracePeriodSeconds":30,"dnsPolicy":"ClusterFirst","securityContext":{},)"
      R"("schedulerName":"default-scheduler"}},"strategy":{"type":"RollingUpdate","rollingUpdate":)"
      R"({"maxUnavailable":"25%","maxSurge":"25%"}},"revisionHistoryLimit":10,"progressDeadlineSeconds":600},)"
      R"("status":{"observedGeneration":1,"conditions":[{"type":"Available","status":"True",)"
      R"("lastUpdateTime":"2024-05-01T10:11:12Z","lastTransitionTime":"2024-05-01T10:11:12Z",)"
      R"("reason":"MinimumReplicasAvailable","message":"ok"}]}})",
      R"({"kind":"Service","apiVersion":"v1","metadata":{"name":"s","namespace":"default","uid":"u",)"
      R"("resourceVersion":"6","creationTimestamp":"2024-05-01T10:11:12Z"},"spec":{"ports":[{"protocol":"TCP",)"
      R"("port":80,"targetPort":80}],"clusterIP":"10.0.0.7","clusterIPs":["10.0.0.7"],"type":"ClusterIP",)"
      R"("sessionAffinity":"None","ipFamilies":["IPv4"],"ipFamilyPolicy":"SingleStack",)"
      R"("internalTrafficPolicy":"Cluster"},"status":{"loadBalancer":{}}})",
      R"({"kind":"Namespace","apiVersion":"v1","metadata":{"name":"n","uid":"u","resourceVersion":"1",)"
      R"("creationTimestamp":"2024-05-01T10:11:12Z","labels":{"kubernetes.io/metadata.name":"n"}},)"
      R"("spec":{"finalizers":["kubernetes"]},"status":{"phase":"Active"}})",
  };
  for (const char* text : stored) {
    json::object object = json::parse(text).as_object();
    EXPECT_EQ(json::serialize(transcoder.decode(transcoder.encode(object))), json::serialize(object));
  }
}

}  // namespace
}  // namespace kapi::schema::transcoder_omitempty_test
