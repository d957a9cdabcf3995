// The protobuf ⇄ JSON transcoder over the built-in type schemas (ConfigMap, Secret, Namespace, Lease, lists,
// Status, watch events) and over a test kind that holds every special type and scalar kind, plus the envelope and
// malformed input of every sort.
#include "server/schema/transcoder.h"

#include "base/base64.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <google/protobuf/descriptor.pb.h>
#include <google/protobuf/text_format.h>

#include <random>

namespace kapi::schema::transcoder_test {
namespace {

namespace json = boost::json;

const Catalog& builtin() {
  static const Catalog catalog = Catalog::builtin();
  return catalog;
}

json::object parse_object(std::string_view text) { return json::parse(text).as_object(); }

std::string bytes(std::initializer_list<int> values) {
  std::string out;
  for (int value : values) out += static_cast<char>(value);
  return out;
}

// The body kubectl 1.32 sends for `kubectl create configmap lit1 --from-literal=k=v` (57 bytes, as logged in
// docs/kubectl-wire.md): Go writes every non-pointer field, empty or not, and the zero creationTimestamp as an
// empty message; kube-apiserver's JSON of it has none of those empty strings (omitempty).
std::string kubectl_configmap_body() {
  std::string meta = bytes({0x0a, 4}) + "lit1" + bytes({0x12, 0, 0x1a, 0, 0x22, 0, 0x2a, 0, 0x32, 0, 0x38, 0, 0x42, 0});
  std::string entry = bytes({0x0a, 1, 'k', 0x12, 1, 'v'});
  std::string configmap = bytes({0x0a, static_cast<int>(meta.size())}) + meta +
                          bytes({0x12, static_cast<int>(entry.size())}) + entry;
  std::string type_meta = bytes({0x0a, 2}) + "v1" + bytes({0x12, 9}) + "ConfigMap";
  std::string unknown = bytes({0x0a, static_cast<int>(type_meta.size())}) + type_meta +
                        bytes({0x12, static_cast<int>(configmap.size())}) + configmap + bytes({0x1a, 0, 0x22, 0});
  return std::string(kProtobufPrefix) + unknown;
}

TEST(TranscoderTest, DecodesWhatKubectlSends) {
  Transcoder transcoder(builtin());
  const std::string body = kubectl_configmap_body();
  ASSERT_EQ(body.size(), 57u);
  json::object object = transcoder.decode(body);
  EXPECT_EQ(json::serialize(object),
            R"({"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"lit1","creationTimestamp":null},)"
            R"("data":{"k":"v"}})");
}

TEST(TranscoderTest, ConfigMapRoundTripsInFieldNumberOrderWithSortedKeys) {
  Transcoder transcoder(builtin());
  const auto* configmap = builtin().kind("", "v1", "ConfigMap");
  ASSERT_NE(configmap, nullptr);
  // data=2 and binaryData=3 come before immutable=4 whatever the JSON order; map keys sorted; unknown fields dropped.
  json::value input = json::parse(R"({"immutable":true,"extra":{"x":1},"data":{"b":"2","a":"1"}})");
  EXPECT_EQ(transcoder.to_protobuf(*configmap, input),
            bytes({0x12, 6, 0x0a, 1, 'a', 0x12, 1, '1', 0x12, 6, 0x0a, 1, 'b', 0x12, 1, '2', 0x20, 1}));

  json::object object = parse_object(
      R"({"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"x","namespace":"default","uid":"u-1",)"
      R"("resourceVersion":"42","creationTimestamp":"2024-05-01T10:11:12Z","labels":{"b":"2","a":"1"},)"
      R"("annotations":{"k":"v"},"finalizers":["f"],"ownerReferences":[{"apiVersion":"v1","kind":"Pod",)"
      R"("name":"p","uid":"pu","controller":true}]},"immutable":false,"data":{"a":"1"},)"
      R"("binaryData":{"blob":"AAEC"}})");
  std::string encoded = transcoder.encode(object);
  EXPECT_TRUE(encoded.starts_with(kProtobufPrefix));
  json::object decoded = transcoder.decode(encoded);
  // Declaration order (Go's struct order), sorted label keys.
  EXPECT_EQ(json::serialize(decoded),
            R"({"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"x","namespace":"default","uid":"u-1",)"
            R"("resourceVersion":"42","creationTimestamp":"2024-05-01T10:11:12Z","labels":{"a":"1","b":"2"},)"
            R"("annotations":{"k":"v"},"ownerReferences":[{"apiVersion":"v1","kind":"Pod","name":"p","uid":"pu",)"
            R"("controller":true}],"finalizers":["f"]},"immutable":false,"data":{"a":"1"},"binaryData":{"blob":"AAEC"}})");
}

TEST(TranscoderTest, SecretKeepsBinaryDataExactly) {
  Transcoder transcoder(builtin());
  std::string binary;
  for (int i = 0; i < 256; ++i) binary += static_cast<char>(255 - i);
  json::object secret{{"kind", "Secret"},
                      {"apiVersion", "v1"},
                      {"metadata", json::object{{"name", "s"}, {"creationTimestamp", nullptr}}},
                      {"data", json::object{{"key", json::string(base::base64_encode(binary))}}},
                      {"type", "Opaque"}};
  std::string encoded = transcoder.encode(secret);
  EXPECT_NE(encoded.find(binary), std::string::npos) << "the wire holds the raw bytes, not base64";
  json::object decoded = transcoder.decode(encoded);
  EXPECT_EQ(decoded, secret);
  EXPECT_EQ(decoded["data"].as_object()["key"].as_string(), base::base64_encode(binary));
  json::object bad = secret;
  bad["data"] = json::object{{"key", "not base64!"}};
  EXPECT_THROW(transcoder.encode(bad), TranscodeError);
}

TEST(TranscoderTest, ExtraValuesAreStringListsInJsonAndMessagesOnTheWire) {
  Transcoder transcoder(builtin());
  json::object review{
      {"kind", "SubjectAccessReview"},
      {"apiVersion", "authorization.k8s.io/v1"},
      {"metadata", json::object{{"creationTimestamp", nullptr}}},
      {"spec", json::object{{"nonResourceAttributes", json::object{{"path", "/healthz"}, {"verb", "get"}}},
                            {"user", "jane"},
                            {"extra", json::object{{"scopes", json::array{"a", "b"}}, {"empty", json::array{}}}}}},
      {"status", json::object{{"allowed", false}}}};
  std::string encoded = transcoder.encode(review);
  // extra["scopes"] is a map entry whose value is an ExtraValue message: items "a" and "b" as field 1.
  EXPECT_NE(encoded.find(bytes({0x0a, 6}) + "scopes" + bytes({0x12, 6, 0x0a, 1, 'a', 0x0a, 1, 'b'})), std::string::npos);
  json::object decoded = transcoder.decode(encoded);
  EXPECT_EQ(decoded["spec"].as_object()["extra"],
            (json::object{{"empty", json::array{}}, {"scopes", json::array{"a", "b"}}}));
  EXPECT_EQ(decoded["status"], (json::object{{"allowed", false}})) << "allowed is written even when false";
  review["spec"].as_object()["extra"] = json::object{{"scopes", "a"}};
  EXPECT_THROW(transcoder.encode(review), TranscodeError);
}

TEST(TranscoderTest, NamespaceWithConditionsAndEmptySpec) {
  Transcoder transcoder(builtin());
  json::object ns = parse_object(
      R"({"kind":"Namespace","apiVersion":"v1","metadata":{"name":"n","creationTimestamp":null,)"
      R"("deletionTimestamp":"2024-05-01T10:11:12Z",)"
      R"("deletionGracePeriodSeconds":0},"spec":{},"status":{"phase":"Terminating","conditions":[{"type":"A",)"
      R"("status":"True","lastTransitionTime":"2024-05-01T10:00:00Z","reason":"R","message":"M"}]}})");
  EXPECT_EQ(transcoder.decode(transcoder.encode(ns)), ns);
}

// +inline members (Go's embedded structs) are nested messages on the wire and the parent's own members in JSON.
TEST(TranscoderTest, InlineMembersAreFlatInJsonAndNestedOnTheWire) {
  Transcoder transcoder(builtin());
  json::object pod = parse_object(
      R"({"kind":"Pod","apiVersion":"v1","metadata":{"name":"p","creationTimestamp":null},"spec":{"volumes":)"
      R"([{"name":"v","configMap":{"name":"cm"}}],"containers":[{"name":"c","image":"i","resources":{},)"
      R"("readinessProbe":{"httpGet":{"path":"/","port":8080},"periodSeconds":5}}]},"status":{}})");
  const std::string encoded = transcoder.encode(pod);
  EXPECT_EQ(transcoder.decode(encoded), pod);
  // On the wire the volume's source is its own message (Volume.volumeSource = 2).
  const auto* volume = builtin().message("k8s.io.api.core.v1.Volume");
  json::value decoded_volume = transcoder.to_json(
      *volume, transcoder.to_protobuf(*volume, json::parse(R"({"name":"v","configMap":{"name":"cm"}})")));
  EXPECT_EQ(decoded_volume, json::parse(R"({"name":"v","configMap":{"name":"cm"}})"));
  EXPECT_NE(transcoder.to_protobuf(*volume, json::parse(R"({"name":"v","configMap":{"name":"cm"}})")).find('\x12'),
            std::string::npos);
}

TEST(TranscoderTest, LeaseKeepsMicroseconds) {
  Transcoder transcoder(builtin());
  json::object lease = parse_object(
      R"({"kind":"Lease","apiVersion":"coordination.k8s.io/v1","metadata":{"name":"l","namespace":"kube-node-lease",)"
      R"("creationTimestamp":null},)"
      R"("spec":{"holderIdentity":"node-1","leaseDurationSeconds":40,"acquireTime":"2024-05-01T10:11:12.000001Z",)"
      R"("renewTime":"2024-05-01T10:11:13.123456Z","leaseTransitions":3}})");
  EXPECT_EQ(transcoder.decode(transcoder.encode(lease)), lease);
  // An RFC 3339 time with nanoseconds or an offset is read as Go reads it and written truncated to microseconds.
  lease["spec"].as_object()["renewTime"] = "2024-05-01T12:11:13.123456789+02:00";
  EXPECT_EQ(transcoder.decode(transcoder.encode(lease))["spec"].as_object()["renewTime"], "2024-05-01T10:11:13.123456Z");
}

TEST(TranscoderTest, TimesFollowTimeProtoGo) {
  Transcoder transcoder(builtin());
  const auto* time = builtin().message("k8s.io.apimachinery.pkg.apis.meta.v1.Time");
  const auto* micro = builtin().message("k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime");
  ASSERT_TRUE(time && micro);
  EXPECT_TRUE(transcoder.to_json(*time, "").is_null()) << "no bytes: the zero time";
  EXPECT_EQ(transcoder.to_protobuf(*time, nullptr), "");
  EXPECT_EQ(transcoder.to_protobuf(*time, "0001-01-01T00:00:00Z"), "") << "the zero time writes nothing";
  // Time writes seconds and a zero nanos field, and ignores nanos when reading.
  EXPECT_EQ(transcoder.to_protobuf(*time, "1970-01-01T00:00:01.5Z"), bytes({0x08, 1, 0x10, 0}));
  EXPECT_EQ(transcoder.to_json(*time, bytes({0x08, 1, 0x10, 7})), "1970-01-01T00:00:01Z");
  EXPECT_EQ(transcoder.to_json(*micro, bytes({0x08, 1, 0x10, 0x88, 0x27})), "1970-01-01T00:00:01.000005Z");
  EXPECT_EQ(transcoder.to_json(*micro, bytes({0x10, 0})), "1970-01-01T00:00:00.000000Z");
  EXPECT_THROW(transcoder.to_protobuf(*time, "yesterday"), TranscodeError);
  EXPECT_THROW(transcoder.to_protobuf(*time, 12), TranscodeError);
}

// A protobuf Time holds any year Go's times do, and kube writes it as Go's Format does (more digits past 9999, a
// sign before 0); kapi keeps objects as that JSON, so it must encode again. Found by fuzzing
// (tests/fuzz/protobuf_fuzz.cc): a protobuf body with such a time could not be stored or answered in protobuf.
TEST(TranscoderTest, TimesOutsideYearsZeroTo9999RoundTrip) {
  Transcoder transcoder(builtin());
  json::object lease = parse_object(
      R"({"kind":"Lease","apiVersion":"coordination.k8s.io/v1","metadata":{"name":"l",)"
      R"("creationTimestamp":"-0001-12-31T23:59:59Z"},"spec":{"renewTime":"10000-01-01T00:00:00.000005Z"}})");
  EXPECT_EQ(transcoder.decode(transcoder.encode(lease)), lease);
  const auto* time = builtin().message("k8s.io.apimachinery.pkg.apis.meta.v1.Time");
  ASSERT_NE(time, nullptr);
  // seconds = INT64_MAX, Go's last second.
  const std::string last = bytes({0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f});
  const json::value formatted = transcoder.to_json(*time, last);
  EXPECT_EQ(formatted, "292277026596-12-04T15:30:07Z");
  EXPECT_EQ(transcoder.to_protobuf(*time, formatted), last + bytes({0x10, 0}));
}

TEST(TranscoderTest, ManagedFieldsCarryEmbeddedJson) {
  Transcoder transcoder(builtin());
  json::object object = parse_object(
      R"({"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"m","creationTimestamp":null,)"
      R"("managedFields":[{"manager":"kubectl",)"
      R"("operation":"Update","apiVersion":"v1","time":"2024-05-01T10:11:12Z","fieldsType":"FieldsV1",)"
      R"("fieldsV1":{"f:data":{".":{},"f:a":{}}}}]},"data":{"a":"1"}})");
  EXPECT_EQ(transcoder.decode(transcoder.encode(object)), object);
}

TEST(TranscoderTest, ListsStatusAndPartialObjectMetadata) {
  Transcoder transcoder(builtin());
  json::object list = parse_object(
      R"({"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"7","continue":"abc",)"
      R"("remainingItemCount":2},"items":[{"metadata":{"name":"a","creationTimestamp":null},"data":{"x":"1"}},)"
      R"({"metadata":{"name":"b","creationTimestamp":null}}]})");
  EXPECT_EQ(transcoder.decode(transcoder.encode(list)), list);
  json::object status = parse_object(
      R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"configmaps \"x\" not found",)"
      R"("reason":"NotFound","details":{"name":"x","kind":"configmaps"},"code":404})");
  EXPECT_EQ(transcoder.decode(transcoder.encode(status)), status);
  // Status is a meta.k8s.io kind served in every group version.
  ASSERT_NE(transcoder.message_for("apps/v1", "Status"), nullptr);
  json::object partial = parse_object(
      R"({"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"9"},)"
      R"("items":[{"metadata":{"name":"a","creationTimestamp":null,"labels":{"x":"y"}}}]})");
  EXPECT_EQ(transcoder.decode(transcoder.encode(partial)), partial);
  EXPECT_EQ(transcoder.message_for("v1", "Nope"), nullptr);
  EXPECT_EQ(transcoder.message_for("v1", "ObjectMeta"), nullptr) << "meta types that are not kinds stay out";
}

TEST(TranscoderTest, WatchEventsEmbedTheEnvelopedObject) {
  Transcoder transcoder(builtin());
  json::object configmap =
      parse_object(R"({"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"w","creationTimestamp":null}})");
  std::string event = transcoder.encode_watch_event("ADDED", configmap);
  EXPECT_EQ(event, Transcoder::watch_event("ADDED", transcoder.encode(configmap)));
  json::object decoded = transcoder.decode_watch_event(event);
  EXPECT_EQ(decoded, (json::object{{"type", "ADDED"}, {"object", configmap}}));
  std::string frame = length_delimited_frame(event);
  ASSERT_EQ(frame.size(), event.size() + 4);
  EXPECT_EQ(frame.substr(0, 4), bytes({0, 0, 0, static_cast<int>(event.size())}));
  EXPECT_EQ(frame.substr(4), event);
}

TEST(TranscoderTest, EnvelopeDefaultsAndUnknownFields) {
  Transcoder transcoder(builtin());
  Unknown unknown{{"", ""}, bytes({0x0a, 3, 0x0a, 1, 'z', 0xc8, 0x06, 0x05})};  // field 105 varint: skipped
  std::string body = write_envelope(unknown);
  EXPECT_EQ(read_envelope(body).raw, unknown.raw);
  EXPECT_THROW(transcoder.decode(body), TranscodeError) << "no kind and no default";
  json::object decoded = transcoder.decode(body, {"v1", "ConfigMap"});
  EXPECT_EQ(json::serialize(decoded),
            R"({"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"z","creationTimestamp":null}})");
  // A message split in two parts is their merge.
  Unknown split{{"v1", "ConfigMap"}, bytes({0x0a, 3, 0x0a, 1, 'a', 0x0a, 4, 0x1a, 2, 'n', 's'})};
  EXPECT_EQ(json::serialize(transcoder.decode(write_envelope(split))),
            R"({"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","namespace":"ns",)"
            R"("creationTimestamp":null}})");
}

TEST(TranscoderTest, MalformedEnvelopesAreErrorsWithGoWording) {
  Transcoder transcoder(builtin());
  auto message = [&](std::string_view body) -> std::string {
    try {
      transcoder.decode(body);
    } catch (const TranscodeError& error) {
      return error.what();
    }
    return "no error";
  };
  EXPECT_EQ(message(""), "empty data");
  EXPECT_EQ(message("{\"kind\":\"ConfigMap\"}"),
            "provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]");
  EXPECT_EQ(message(kProtobufPrefix), "empty body");
  EXPECT_EQ(message(write_envelope({{"v1", "Gadget"}, ""})), "no kind \"Gadget\" is registered for version \"v1\"");
  EXPECT_EQ(message(write_envelope({{"v1", "ConfigMap"}, bytes({0x0a, 5, 0x0a})})), "unexpected EOF");
  EXPECT_EQ(message(write_envelope({{"v1", "ConfigMap"}, bytes({0x08, 1})})), "proto: wrong wireType = 0 for field metadata");
  EXPECT_EQ(message(write_envelope({{"v1", "ConfigMap"}, bytes({0x00, 1})})), "proto: illegal tag 0 (wire type 0)");
  EXPECT_EQ(message(write_envelope({{"v1", "ConfigMap"}, bytes({0x4b})})), "proto: illegal wireType 3");
  EXPECT_EQ(message(write_envelope({{"v1", "ConfigMap"}, bytes({0x0a, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01})})),
            "proto: integer overflow");
  // Every truncation of a real body is an error, never a crash or an over-read.
  const std::string body = kubectl_configmap_body();
  for (std::size_t size = 5; size < body.size(); ++size) {
    try {
      transcoder.decode(std::string_view(body).substr(0, size));
    } catch (const TranscodeError&) {
    }
  }
}

TEST(TranscoderTest, RandomCorruptionNeverCrashes) {
  Transcoder transcoder(builtin());
  json::object lease = parse_object(
      R"({"kind":"Lease","apiVersion":"coordination.k8s.io/v1","metadata":{"name":"l","labels":{"a":"b"},)"
      R"("managedFields":[{"manager":"m","fieldsV1":{"f:spec":{}}}]},"spec":{"holderIdentity":"h",)"
      R"("renewTime":"2024-05-01T10:11:13.123456Z"}})");
  const std::string good = transcoder.encode(lease);
  std::minstd_rand random(42);
  for (int round = 0; round < 3000; ++round) {
    std::string body = good;
    const int edits = 1 + static_cast<int>(random() % 4);
    for (int i = 0; i < edits; ++i) {
      const std::size_t at = 4 + random() % (body.size() - 4);
      body[at] = static_cast<char>(random() & 0xFF);
    }
    try {
      transcoder.decode(body);
    } catch (const TranscodeError&) {
    }
  }
}

}  // namespace
}  // namespace kapi::schema::transcoder_test
