#include "server/schema/decoding.h"

#include "server/apierrors/errors.h"

#include <boost/json.hpp>
#include <gtest/gtest.h>

namespace kapi::schema::decoding_test {
namespace {

namespace json = boost::json;

class DecodingTest : public ::testing::Test {
 protected:
  Catalog catalog = Catalog::builtin();

  std::vector<std::string> conform_json(std::string_view kind, std::string_view text, json::object* out = nullptr) {
    json::object object = json::parse(text).as_object();
    auto unknown = conform(catalog, catalog.kind("", "v1", kind), object);
    if (out) *out = std::move(object);
    return unknown;
  }

  std::string error_of(std::string_view kind, std::string_view text) {
    try {
      conform_json(kind, text);
    } catch (const apierrors::ApiError& error) {
      EXPECT_EQ(error.status().code, 400);
      return error.status().message;
    }
    return "no error";
  }
};

TEST_F(DecodingTest, UnknownFieldsArePrunedAndReportedWithTheirPaths) {
  json::object object;
  auto unknown = conform_json("ServiceAccount", R"({"apiVersion":"v1","kind":"ServiceAccount","extra":1,
      "metadata":{"name":"a","bogus":{"x":1}},"secrets":[{"name":"s"},{"name":"t","nope":true}]})", &object);
  EXPECT_EQ(unknown, (std::vector<std::string>{"extra", "metadata.bogus", "secrets[1].nope"}));
  EXPECT_EQ(json::serialize(object), R"({"kind":"ServiceAccount","apiVersion":"v1","metadata":{"name":"a",)"
                                     R"("creationTimestamp":null},"secrets":[{"name":"s"},{"name":"t"}]})");
}

TEST_F(DecodingTest, DefaultsFillAbsentFieldsOnly) {
  json::object object;
  conform_json("Secret", R"({"apiVersion":"v1","kind":"Secret","metadata":{"name":"a"}})", &object);
  EXPECT_EQ(object.at("type"), "Opaque");
  conform_json("Secret", R"({"apiVersion":"v1","kind":"Secret","metadata":{"name":"a"},"type":"kubernetes.io/tls"})", &object);
  EXPECT_EQ(object.at("type"), "kubernetes.io/tls");
}

TEST_F(DecodingTest, DefaultedObjectsGetTheirOwnDefaults) {
  json::object object;
  conform_json("Service", R"({"apiVersion":"v1","kind":"Service","metadata":{"name":"s"}})", &object);
  ASSERT_TRUE(object.at("spec").is_object()) << json::serialize(object);
  EXPECT_EQ(object.at("spec").at("type"), "ClusterIP") << json::serialize(object);
  EXPECT_EQ(object.at("spec").at("sessionAffinity"), "None") << json::serialize(object);
}

TEST_F(DecodingTest, WrongTypesFailAsKubeDecodingDoes) {
  EXPECT_EQ(error_of("ConfigMap", R"({"metadata":{"name":"a"},"data":{"k":1}})"),
            "ConfigMap in version \"v1\" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go "
            "struct field ConfigMap.data of type string");
  EXPECT_EQ(error_of("ConfigMap", R"({"metadata":{"name":"a"},"data":[]})"),
            "ConfigMap in version \"v1\" cannot be handled as a ConfigMap: json: cannot unmarshal array into Go "
            "struct field ConfigMap.data of type map[string]string");
  EXPECT_EQ(error_of("ConfigMap", R"({"metadata":{"name":"a","labels":"x"}})"),
            "ConfigMap in version \"v1\" cannot be handled as a ConfigMap: json: cannot unmarshal string into Go "
            "struct field ObjectMeta.metadata.labels of type map[string]string");
  EXPECT_EQ(error_of("Namespace", R"({"spec":{"finalizers":[1]}})"),
            "Namespace in version \"v1\" cannot be handled as a Namespace: json: cannot unmarshal number into Go "
            "struct field NamespaceSpec.spec.finalizers of type string");
  EXPECT_EQ(error_of("ConfigMap", R"({"immutable":"yes"})"),
            "ConfigMap in version \"v1\" cannot be handled as a ConfigMap: json: cannot unmarshal string into Go "
            "struct field ConfigMap.immutable of type bool");
  EXPECT_NE(error_of("ConfigMap", R"({"metadata":{"creationTimestamp":5}})")
                .find("cannot unmarshal number into Go struct field ObjectMeta.metadata.creationTimestamp of type v1.Time"),
            std::string::npos);
  EXPECT_EQ(conform_json("ConfigMap", R"({"metadata":{"name":"a","labels":null},"data":null})").size(), 0u);
}

// A []byte (Secret and ConfigMap binary data) is base64 in JSON: what is not has no bytes to store, and kube answers
// encoding/json's error. A YAML body's !!binary value becomes such raw text. Found by fuzzing
// (tests/fuzz/body_decoding_fuzz.cc): the body was accepted, then could not be stored (500).
TEST_F(DecodingTest, BytesThatAreNotBase64FailAsKubeDecodingDoes) {
  EXPECT_EQ(error_of("Secret", R"({"metadata":{"name":"s"},"data":{"key":"\u0000\u0001\u0002"}})"),
            "Secret in version \"v1\" cannot be handled as a Secret: illegal base64 data at input byte 0");
  EXPECT_EQ(error_of("ConfigMap", R"({"metadata":{"name":"c"},"binaryData":{"a":"AAEC","b":"AA=C"}})"),
            "ConfigMap in version \"v1\" cannot be handled as a ConfigMap: illegal base64 data at input byte 2");
  json::object object;
  EXPECT_TRUE(conform_json("Secret", R"({"data":{"a":"AAEC","b":"AA\r\nEC","c":"","d":null}})", &object).empty());
  EXPECT_EQ(object.at("data").at("b"), "AAEC") << "Go skips line breaks when it decodes, and writes the bytes back";
}

// Time and MicroTime read their strings with Go's time.Parse: a time it refuses is kube's 400 with Go's error, a time
// it accepts is one kapi can store. Found by fuzzing (tests/fuzz/body_decoding_fuzz.cc): such bodies were accepted,
// then could not be stored (500).
TEST_F(DecodingTest, TimesAreReadAsGoReadsThem) {
  EXPECT_EQ(error_of("Event", R"({"metadata":{"name":"e"},"firstTimestamp":"2024-05-1T001:11:12Z"})"),
            "Event in version \"v1\" cannot be handled as a Event: parsing time \"2024-05-1T001:11:12Z\" as "
            "\"2006-01-02T15:04:05Z07:00\": cannot parse \"1T001:11:12Z\" as \"02\"");
  EXPECT_EQ(error_of("Event", R"({"metadata":{"name":"e"},"eventTime":"2024-05-01T10:11:12Z"})"),
            "Event in version \"v1\" cannot be handled as a Event: parsing time \"2024-05-01T10:11:12Z\" as "
            "\"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"Z\" as \".000000\"");
  EXPECT_EQ(error_of("Pod", R"({"status":{"conditions":[{"lastTransitionTime":"2023-02-29T00:00:00Z"}]}})"),
            "Pod in version \"v1\" cannot be handled as a Pod: parsing time \"2023-02-29T00:00:00Z\": "
            "day out of range");
  EXPECT_TRUE(conform_json("Event", R"({"metadata":{"creationTimestamp":null},
      "firstTimestamp":"2024-05-01T1:11:12+02:00","eventTime":"2024-05-01T10:11:12.000001Z",
      "series":{"lastObservedTime":"2024-05-01T10:11:12,123456-01:00"}})").empty());
}

// An integer beyond its field's Go type is encoding/json's error, naming the number; kapi took it, then could not
// store it. For an applied object kube's unstructured converter keeps the low bits instead (kConvert). Found by
// fuzzing (tests/fuzz/apply_fuzz.cc).
TEST_F(DecodingTest, IntegersBeyondTheirGoTypeFailAsKubeDecodingDoes) {
  EXPECT_EQ(error_of("Pod", R"({"spec":{"containers":[{"name":"c","ports":[{"containerPort":99999999999}]}]}})"),
            "Pod in version \"v1\" cannot be handled as a Pod: json: cannot unmarshal number 99999999999 into Go "
            "struct field ContainerPort.spec.containers.ports.containerPort of type int32");
  EXPECT_EQ(error_of("Pod", R"({"spec":{"activeDeadlineSeconds":18446744073709551615}})"),
            "Pod in version \"v1\" cannot be handled as a Pod: json: cannot unmarshal number 18446744073709551615 "
            "into Go struct field PodSpec.spec.activeDeadlineSeconds of type int64");
  EXPECT_EQ(error_of("Service", R"({"spec":{"ports":[{"port":80,"targetPort":2147483648}]}})"),
            "Service in version \"v1\" cannot be handled as a Service: json: cannot unmarshal number 2147483648 into "
            "Go value of type int32");
  EXPECT_TRUE(conform_json("Pod", R"({"spec":{"activeDeadlineSeconds":-9223372036854775808,
      "containers":[{"name":"c","ports":[{"containerPort":-2147483648},{"containerPort":2147483647}]}]}})").empty());

  json::object applied = json::parse(R"({"spec":{"ports":[{"port":4294967376}],
      "sessionAffinityConfig":{"clientIP":{"timeoutSeconds":-4294967295}}}})").as_object();
  conform(catalog, catalog.kind("", "v1", "Service"), applied, IntegerOverflow::kConvert);
  EXPECT_EQ(applied.at("spec").at("ports").at(0).at("port"), 80);
  EXPECT_EQ(applied.at("spec").at("sessionAffinityConfig").at("clientIP").at("timeoutSeconds"), 1);
}

// Go's decoder quotes a number only where it tried to read one: an integer field names a fraction by its digits
// (Boost.JSON's own spelling, "1.5E0", is no Go's), any other field by its kind alone.
TEST_F(DecodingTest, NumbersAreNamedAsGoNamesThem) {
  const std::string unmarshal = "json: cannot unmarshal ";
  EXPECT_EQ(error_of("ConfigMap", R"({"metadata":{"name":"a"},"data":{"k":1.5}})"),
            "ConfigMap in version \"v1\" cannot be handled as a ConfigMap: " + unmarshal +
                "number into Go struct field ConfigMap.data of type string");
  const std::string pod = "Pod in version \"v1\" cannot be handled as a Pod: " + unmarshal;
  for (const auto& [body, message] : std::vector<std::pair<std::string, std::string>>{
           {R"({"spec":{"containers":[{"name":"c","ports":[{"containerPort":1.5}]}]}})",
            "number 1.5 into Go struct field ContainerPort.spec.containers.ports.containerPort of type int32"},
           {R"({"spec":{"activeDeadlineSeconds":0.25}})",
            "number 0.25 into Go struct field PodSpec.spec.activeDeadlineSeconds of type int64"}})
    EXPECT_EQ(error_of("Pod", body), pod + message) << body;
}

// IntOrString.UnmarshalJSON reads anything but a string as an int32 with encoding/json, whose errors carry no field.
TEST_F(DecodingTest, IntOrStringReadsAnythingButAStringAsAnInt32) {
  const std::string prefix = "Service in version \"v1\" cannot be handled as a Service: json: cannot unmarshal ";
  auto target_port = [&](std::string_view value) {
    return error_of("Service", R"({"spec":{"ports":[{"port":80,"targetPort":)" + std::string(value) + "}]}}");
  };
  EXPECT_EQ(target_port("1.5"), prefix + "number 1.5 into Go value of type int32");
  EXPECT_EQ(target_port("true"), prefix + "bool into Go value of type int32");
  EXPECT_EQ(target_port("[8080]"), prefix + "array into Go value of type int32");
  EXPECT_EQ(target_port("{}"), prefix + "object into Go value of type int32");
  EXPECT_EQ(target_port("\"http\""), "no error");
  EXPECT_EQ(target_port("8080"), "no error");
}

// Quantity.UnmarshalJSON parses what it is given, quoted or not, and answers ParseQuantity's error; what it accepts
// is written back in kube's canonical spelling. kapi stored "abc" as a quota's limit, which every client then failed
// to decode.
TEST_F(DecodingTest, QuantitiesAreParsedAndWrittenAsKubeWritesThem) {
  const std::string prefix = "ResourceQuota in version \"v1\" cannot be handled as a ResourceQuota: ";
  const std::string format_wrong =
      "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
  auto hard_pods = [&](std::string_view value) {
    return error_of("ResourceQuota", R"({"spec":{"hard":{"pods":)" + std::string(value) + "}}}");
  };
  EXPECT_EQ(hard_pods("\"abc\""), prefix + format_wrong);
  EXPECT_EQ(hard_pods("\"\""), prefix + format_wrong);
  EXPECT_EQ(hard_pods("true"), prefix + format_wrong);
  EXPECT_EQ(hard_pods("[1]"), prefix + format_wrong);
  EXPECT_EQ(hard_pods("{}"), prefix + format_wrong);
  EXPECT_EQ(hard_pods("\"1.5Zi\""), prefix + format_wrong);
  EXPECT_EQ(hard_pods("\"1e9223372036854775808\""), prefix + "unable to parse quantity's suffix");

  json::object pod;
  EXPECT_TRUE(conform_json("Pod", R"({"spec":{"containers":[{"name":"c","resources":{
      "requests":{"cpu":"0.5","memory":1024,"ephemeral-storage":" 2Gi ","nvidia.com/gpu":"1"},
      "limits":{"cpu":1.5,"memory":"1e3"}}}]}})", &pod).empty());
  const json::value& resources = pod.at("spec").at("containers").at(0).at("resources");
  EXPECT_EQ(resources.at("requests"),
            json::parse(R"({"cpu":"500m","memory":"1024","ephemeral-storage":"2Gi","nvidia.com/gpu":"1"})"));
  EXPECT_EQ(resources.at("limits"), json::parse(R"({"cpu":"1500m","memory":"1e3"})"));
}

TEST_F(DecodingTest, FieldValidationDirective) {
  EXPECT_EQ(parse_field_validation(""), FieldValidation::kWarn);
  EXPECT_EQ(parse_field_validation("Strict"), FieldValidation::kStrict);
  EXPECT_EQ(parse_field_validation("Ignore"), FieldValidation::kIgnore);
  EXPECT_THROW(parse_field_validation("strict"), apierrors::ApiError);
  const std::vector<std::string> unknown{"extra", "metadata.bogus"};
  EXPECT_EQ(report_unknown_fields(FieldValidation::kWarn, unknown),
            (std::vector<std::string>{"unknown field \"extra\"", "unknown field \"metadata.bogus\""}));
  EXPECT_TRUE(report_unknown_fields(FieldValidation::kIgnore, unknown).empty());
  try {
    report_unknown_fields(FieldValidation::kStrict, unknown);
    FAIL();
  } catch (const apierrors::ApiError& error) {
    EXPECT_EQ(error.status().code, 400);
    EXPECT_EQ(error.status().message,
              "strict decoding error: unknown field \"extra\", unknown field \"metadata.bogus\"");
  }
}

// What kube's handlers hold after decoding is the Go struct: null and omitempty zeros are gone, a +pointer zero
// stays, absent non-pointer structs are their zero form (a container's resources), and TypeMeta leads.
TEST_F(DecodingTest, TheGoFormIsTheTypedObjectAsEncodingJsonWritesIt) {
  json::object pod = json::parse(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labels":null,
      "annotations":{}},"spec":{"nodeSelector":null,"hostname":"","terminationGracePeriodSeconds":0,
      "containers":[{"name":"c","image":"i","ports":[],"env":[{"name":"A","value":null}]}]}})").as_object();
  to_go_form(catalog, catalog.kind("", "v1", "Pod"), pod);
  EXPECT_EQ(json::serialize(pod),
            R"({"kind":"Pod","apiVersion":"v1","metadata":{"name":"p","creationTimestamp":null},)"
            R"("spec":{"containers":[{"name":"c","image":"i","env":[{"name":"A"}],"resources":{}}],)"
            R"("terminationGracePeriodSeconds":0},"status":{}})");
}

}  // namespace
}  // namespace kapi::schema::decoding_test
