// Content negotiation: which representation and encoding an Accept header asks for, and which body formats decode.
#include "server/endpoints/negotiation.h"

#include "server/apierrors/errors.h"

#include <gtest/gtest.h>

namespace kapi::endpoints::negotiation_test {
namespace {

http::Request with_header(const char* name, const char* value) {
  http::Request request;
  request.method = "GET";
  if (value) request.headers.set(name, value);
  return request;
}

Output negotiated(const char* accept, bool objects_have_protobuf = true) {
  return negotiate(with_header("Accept", accept), objects_have_protobuf);
}

TEST(NegotiationTest, ProtobufWhenAcceptPrefersIt) {
  // client-go's typed clients and kubectl's generators.
  Output typed = negotiated("application/vnd.kubernetes.protobuf,application/json");
  EXPECT_EQ(typed.representation, Representation::Object);
  EXPECT_EQ(typed.encoding, Encoding::Protobuf);
  EXPECT_EQ(negotiated("application/vnd.kubernetes.protobuf;stream=watch").encoding, Encoding::Protobuf);
  EXPECT_EQ(negotiated("application/json, application/vnd.kubernetes.protobuf").encoding, Encoding::Json);
  EXPECT_EQ(negotiated(nullptr).encoding, Encoding::Json);
  EXPECT_EQ(negotiated("*/*").encoding, Encoding::Json);
}

TEST(NegotiationTest, MetadataOnlyAndTables) {
  Output partial = negotiated("application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1");
  EXPECT_EQ(partial.representation, Representation::PartialObjectMetadata);
  EXPECT_EQ(partial.encoding, Encoding::Protobuf);
  // A Table has no protobuf form: the next range answers.
  Output table = negotiated("application/vnd.kubernetes.protobuf;as=Table;g=meta.k8s.io;v=v1,application/json");
  EXPECT_EQ(table.representation, Representation::Object);
  EXPECT_EQ(table.encoding, Encoding::Json);
  EXPECT_EQ(negotiated("application/json;as=Table;g=meta.k8s.io;v=v1").representation, Representation::Table);
}

TEST(NegotiationTest, KindsWithoutATypeSchemaFallBackToJson) {
  Output fallback = negotiated("application/vnd.kubernetes.protobuf,application/json", false);
  EXPECT_EQ(fallback.encoding, Encoding::Json);
  // Metadata-only answers are meta.k8s.io types, always encodable.
  EXPECT_EQ(negotiated("application/vnd.kubernetes.protobuf;as=PartialObjectMetadata;g=meta.k8s.io;v=v1", false).encoding,
            Encoding::Protobuf);
  try {
    negotiated("application/vnd.kubernetes.protobuf", false);
    ADD_FAILURE() << "expected 406";
  } catch (const apierrors::ApiError& error) {
    EXPECT_EQ(error.status().code, 406);
  }
}

TEST(NegotiationTest, ProtobufBodiesForCreateAndUpdateOnly) {
  EXPECT_EQ(body_format(with_header("Content-Type", "application/vnd.kubernetes.protobuf"), false), BodyFormat::Protobuf);
  EXPECT_EQ(body_format(with_header("Content-Type", "application/json; charset=utf-8"), false), BodyFormat::Json);
  EXPECT_EQ(body_format(with_header("Content-Type", nullptr), false), BodyFormat::Json);
  EXPECT_EQ(body_format(with_header("Content-Type", "application/yaml"), false), BodyFormat::Yaml);
  try {
    body_format(with_header("Content-Type", "application/xml"), false);
    ADD_FAILURE() << "expected 415";
  } catch (const apierrors::ApiError& error) {
    EXPECT_EQ(error.status().message,
              "the body of the request was in an unknown format - accepted media types include: application/json, "
              "application/yaml, application/vnd.kubernetes.protobuf");
  }
  for (bool patch : {false, true}) {
    const char* type = patch ? "application/vnd.kubernetes.protobuf" : "text/plain";
    try {
      body_format(with_header("Content-Type", type), patch);
      ADD_FAILURE() << "expected 415 for " << type;
    } catch (const apierrors::ApiError& error) {
      EXPECT_EQ(error.status().code, 415);
    }
  }
}

}  // namespace
}  // namespace kapi::endpoints::negotiation_test
