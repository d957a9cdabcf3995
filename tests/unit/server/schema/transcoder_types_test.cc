// The transcoder's special types and scalar kinds, over a test kind built next to the built-in schemas: Duration,
// IntOrString, Quantity (with map<string, Quantity>), RawExtension, map<string, bytes>, every integer encoding,
// floats, packed repeated fields, json_name, and a recursive field for the nesting bound.
#include "server/schema/transcoder.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <google/protobuf/descriptor.pb.h>
#include <google/protobuf/text_format.h>

namespace kapi::schema::transcoder_types_test {
namespace {

namespace json = boost::json;
namespace pb = google::protobuf;

constexpr const char* kWidgetProto = R"pb(
  name: "test/widget.proto"
  package: "k8s.io.api.example.v1"
  dependency: "protos/k8s/apimachinery/meta_v1.proto"
  dependency: "protos/k8s/apimachinery/intstr.proto"
  dependency: "protos/k8s/apimachinery/resource.proto"
  dependency: "protos/k8s/apimachinery/runtime.proto"
  syntax: "proto2"
  message_type {
    name: "Widget"
    field { name: "metadata" number: 1 label: LABEL_OPTIONAL type: TYPE_MESSAGE type_name: ".k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta" }
    field { name: "timeout" number: 2 label: LABEL_OPTIONAL type: TYPE_MESSAGE type_name: ".k8s.io.apimachinery.pkg.apis.meta.v1.Duration" }
    field { name: "port" number: 3 label: LABEL_OPTIONAL type: TYPE_MESSAGE type_name: ".k8s.io.apimachinery.pkg.util.intstr.IntOrString" }
    field { name: "size" number: 4 label: LABEL_OPTIONAL type: TYPE_MESSAGE type_name: ".k8s.io.apimachinery.pkg.api.resource.Quantity" }
    field { name: "limits" number: 5 label: LABEL_REPEATED type: TYPE_MESSAGE type_name: ".k8s.io.api.example.v1.Widget.LimitsEntry" }
    field { name: "blobs" number: 6 label: LABEL_REPEATED type: TYPE_MESSAGE type_name: ".k8s.io.api.example.v1.Widget.BlobsEntry" }
    field { name: "counts" number: 7 label: LABEL_REPEATED type: TYPE_INT32 }
    field { name: "big" number: 8 label: LABEL_OPTIONAL type: TYPE_INT64 }
    field { name: "huge" number: 9 label: LABEL_OPTIONAL type: TYPE_UINT64 }
    field { name: "zig" number: 10 label: LABEL_OPTIONAL type: TYPE_SINT32 }
    field { name: "zag" number: 11 label: LABEL_OPTIONAL type: TYPE_SINT64 }
    field { name: "fixed" number: 12 label: LABEL_OPTIONAL type: TYPE_FIXED32 }
    field { name: "ratio" number: 13 label: LABEL_OPTIONAL type: TYPE_DOUBLE }
    field { name: "scale" number: 14 label: LABEL_OPTIONAL type: TYPE_FLOAT }
    field { name: "enabled" number: 15 label: LABEL_OPTIONAL type: TYPE_BOOL }
    field { name: "payload" number: 16 label: LABEL_OPTIONAL type: TYPE_BYTES }
    field { name: "child" number: 17 label: LABEL_OPTIONAL type: TYPE_MESSAGE type_name: ".k8s.io.api.example.v1.Widget" }
    field { name: "extension" number: 18 label: LABEL_OPTIONAL type: TYPE_MESSAGE type_name: ".k8s.io.apimachinery.pkg.runtime.RawExtension" }
    field { name: "xKubernetesThing" number: 19 label: LABEL_OPTIONAL type: TYPE_STRING json_name: "x-kubernetes-thing" }
    field { name: "small" number: 20 label: LABEL_OPTIONAL type: TYPE_INT32 }
    field { name: "negative" number: 21 label: LABEL_OPTIONAL type: TYPE_SFIXED64 }
    nested_type {
      name: "LimitsEntry"
      field { name: "key" number: 1 label: LABEL_OPTIONAL type: TYPE_STRING }
      field { name: "value" number: 2 label: LABEL_OPTIONAL type: TYPE_MESSAGE type_name: ".k8s.io.apimachinery.pkg.api.resource.Quantity" }
      options { map_entry: true }
    }
    nested_type {
      name: "BlobsEntry"
      field { name: "key" number: 1 label: LABEL_OPTIONAL type: TYPE_STRING }
      field { name: "value" number: 2 label: LABEL_OPTIONAL type: TYPE_BYTES }
      options { map_entry: true }
    }
  }
)pb";

// The built-in schemas plus the Widget kind (group example, version v1).
const Catalog& catalog() {
  static const Catalog built = [] {
    const Catalog builtin = Catalog::builtin();
    pb::FileDescriptorSet set;
    for (const char* name : {"protos/k8s/apimachinery/runtime.proto", "protos/k8s/apimachinery/meta_v1.proto",
                             "protos/k8s/apimachinery/intstr.proto", "protos/k8s/apimachinery/resource.proto"}) {
      const pb::FileDescriptor* file = builtin.pool().FindFileByName(name);
      EXPECT_NE(file, nullptr) << name;
      if (!file) continue;
      pb::FileDescriptorProto* copy = set.add_file();
      file->CopyTo(copy);
      file->CopySourceCodeInfoTo(copy);  // the comments hold the markers
    }
    pb::FileDescriptorProto* widget_file = set.add_file();
    EXPECT_TRUE(pb::TextFormat::ParseFromString(kWidgetProto, widget_file));
    // Widget's singular fields are Go pointers, so what is sent comes back, zero values included.
    const pb::DescriptorProto& widget_message = widget_file->message_type(0);
    for (int i = 0; i < widget_message.field_size(); ++i) {
      if (widget_message.field(i).label() == pb::FieldDescriptorProto::LABEL_REPEATED) continue;
      pb::SourceCodeInfo::Location* location = widget_file->mutable_source_code_info()->add_location();
      for (int part : {4, 0, 2, i}) location->add_path(part);  // message_type 0, field i
      for (int part : {0, 0, 0}) location->add_span(part);
      location->set_leading_comments(" +pointer\n");
    }
    return Catalog::from_descriptor_set(set.SerializeAsString());
  }();
  return built;
}

const pb::Descriptor& widget() {
  const pb::Descriptor* found = catalog().kind("example", "v1", "Widget");
  EXPECT_NE(found, nullptr);
  return *found;
}

json::value round_trip(const json::value& value) {
  Transcoder transcoder(catalog());
  return transcoder.to_json(widget(), transcoder.to_protobuf(widget(), value));
}

TEST(TranscoderTypesTest, EveryFieldKindRoundTrips) {
  json::value widget_json = json::parse(
      R"({"metadata":{"name":"w","creationTimestamp":null},"timeout":"1h2m3.5s","port":8080,"size":"1500m",)"
      R"("limits":{"cpu":"2","memory":"1Gi"},"blobs":{"a":"AAEC","b":""},"counts":[1,-2,3],)"
      R"("big":9007199254740993,"huge":18446744073709551615,"zig":-5,"zag":-9223372036854775808,)"
      R"("fixed":4294967295,"ratio":0.25,"scale":1.5,"enabled":false,"payload":"aGVsbG8=",)"
      R"("child":{"port":"http"},"extension":{"apiVersion":"v1","kind":"Any","spec":[1,{"x":null}]},)"
      R"("x-kubernetes-thing":"yes","small":-1,"negative":-7})");
  EXPECT_EQ(round_trip(widget_json), widget_json);
}

TEST(TranscoderTypesTest, IntOrStringFollowsItsType) {
  Transcoder transcoder(catalog());
  const auto* int_or_string = catalog().message("k8s.io.apimachinery.pkg.util.intstr.IntOrString");
  ASSERT_NE(int_or_string, nullptr);
  // Go writes all three fields, type first.
  EXPECT_EQ(transcoder.to_protobuf(*int_or_string, 80), std::string("\x08\x00\x10\x50\x1a\x00", 6));
  EXPECT_EQ(transcoder.to_protobuf(*int_or_string, "25%"), std::string("\x08\x01\x10\x00\x1a\x03" "25%", 9));
  EXPECT_EQ(transcoder.to_json(*int_or_string, std::string("\x08\x01\x1a\x01x", 5)), "x");
  EXPECT_EQ(transcoder.to_json(*int_or_string, std::string("\x10\x07", 2)), 7) << "type 0 (or none): intVal";
  EXPECT_EQ(transcoder.to_json(*int_or_string, ""), 0);
  EXPECT_THROW(transcoder.to_protobuf(*int_or_string, 4294967296), TranscodeError);
  EXPECT_THROW(transcoder.to_protobuf(*int_or_string, 1.5), TranscodeError);
  EXPECT_THROW(transcoder.to_protobuf(*int_or_string, true), TranscodeError);
}

TEST(TranscoderTypesTest, QuantityIsAStringAndAcceptsNumbers) {
  EXPECT_EQ(round_trip(json::parse(R"({"size":2})")), json::parse(R"({"size":"2"})"));
  EXPECT_EQ(round_trip(json::parse(R"({"size":0.5})")), json::parse(R"({"size":"0.5"})"));
  EXPECT_EQ(round_trip(json::parse(R"({"limits":{"cpu":100}})")), json::parse(R"({"limits":{"cpu":"100"}})"));
  Transcoder transcoder(catalog());
  const auto* quantity = catalog().message("k8s.io.apimachinery.pkg.api.resource.Quantity");
  EXPECT_EQ(transcoder.to_json(*quantity, ""), "0") << "the zero Quantity";
  EXPECT_THROW(transcoder.to_protobuf(widget(), json::parse(R"({"size":{}})")), TranscodeError);
}

TEST(TranscoderTypesTest, DurationIsAGoDurationString) {
  Transcoder transcoder(catalog());
  const auto* duration = catalog().message("k8s.io.apimachinery.pkg.apis.meta.v1.Duration");
  EXPECT_EQ(transcoder.to_protobuf(*duration, "1.5s"), std::string("\x08\x80\xde\xa0\xcb\x05", 6));
  EXPECT_EQ(transcoder.to_json(*duration, ""), "0s");
  EXPECT_EQ(round_trip(json::parse(R"({"timeout":"90s"})")), json::parse(R"({"timeout":"1m30s"})"));
  EXPECT_THROW(transcoder.to_protobuf(*duration, "soon"), TranscodeError);
  EXPECT_THROW(transcoder.to_protobuf(*duration, 5), TranscodeError);
}

TEST(TranscoderTypesTest, MapValuesMissingOnTheWireAreZeroValues) {
  Transcoder transcoder(catalog());
  // limits entry with a key only, blobs entry with a key only.
  std::string bytes = std::string("\x2a\x03\x0a\x01" "c", 5) + std::string("\x32\x03\x0a\x01" "d", 5);
  EXPECT_EQ(transcoder.to_json(widget(), bytes), json::parse(R"({"limits":{"c":"0"},"blobs":{"d":""}})"));
}

TEST(TranscoderTypesTest, PackedRepeatedScalarsAreRead) {
  Transcoder transcoder(catalog());
  std::string packed("\x3a\x03\x01\x02\x03", 5);  // counts = [1, 2, 3], packed
  EXPECT_EQ(transcoder.to_json(widget(), packed), json::parse(R"({"counts":[1,2,3]})"));
  EXPECT_THROW(transcoder.to_json(widget(), std::string("\x3a\x02\x01\xff", 4)), TranscodeError);
}

TEST(TranscoderTypesTest, WrongJsonTypesAreErrors) {
  Transcoder transcoder(catalog());
  for (const char* bad : {R"({"big":"1"})", R"({"small":2147483648})", R"({"small":1.5})", R"({"fixed":-1})",
                          R"({"enabled":"true"})", R"({"counts":{}})", R"({"limits":[]})", R"({"metadata":[]})",
                          R"({"payload":"%%%"})", R"({"ratio":"x"})", R"({"x-kubernetes-thing":1})"}) {
    EXPECT_THROW(transcoder.to_protobuf(widget(), json::parse(bad)), TranscodeError) << bad;
  }
  EXPECT_THROW(transcoder.to_protobuf(widget(), json::parse("[]")), TranscodeError);
  // Integral doubles and nulls are accepted as Go's decoder would leave them.
  EXPECT_EQ(round_trip(json::parse(R"({"small":3.0,"child":null,"counts":[null]})")),
            json::parse(R"({"small":3,"counts":[0]})"));
}

// A length-delimited field: its tag bytes, the varint length, the payload.
std::string field(std::string_view tag, std::string_view payload) {
  std::string out(tag);
  for (std::size_t n = payload.size();; n >>= 7) {
    out += static_cast<char>((n & 0x7F) | (n >= 0x80 ? 0x80 : 0));
    if (n < 0x80) break;
  }
  return out.append(payload);
}

TEST(TranscoderTypesTest, NestingIsBounded) {
  Transcoder transcoder(catalog());
  constexpr std::string_view kChild = "\x8a\x01";      // field 17, length-delimited
  constexpr std::string_view kExtension = "\x92\x01";  // field 18
  auto nested = [&](int depth) {
    std::string body;
    for (int i = 0; i < depth; ++i) body = field(kChild, body);
    return body;
  };
  EXPECT_NO_THROW(transcoder.to_json(widget(), nested(200)));
  EXPECT_THROW(transcoder.to_json(widget(), nested(kMaxMessageDepth + 5)), TranscodeError);
  json::value deep = json::object();
  for (int i = 0; i < kMaxMessageDepth + 5; ++i) deep = json::object{{"child", std::move(deep)}};
  EXPECT_THROW(transcoder.to_protobuf(widget(), deep), TranscodeError);
  // Envelopes inside RawExtensions count too: Widget{extension: RawExtension{raw: envelope(Widget{...})}}.
  auto enveloped = [&](int depth) {
    std::string envelope = write_envelope({{"example/v1", "Widget"}, ""});
    for (int i = 0; i < depth; ++i)
      envelope = write_envelope({{"example/v1", "Widget"}, field(kExtension, field("\x0a", envelope))});
    return envelope;
  };
  EXPECT_NO_THROW(transcoder.decode(enveloped(50)));
  EXPECT_THROW(transcoder.decode(enveloped(kMaxMessageDepth / 2)), TranscodeError);
}

}  // namespace
}  // namespace kapi::schema::transcoder_types_test
