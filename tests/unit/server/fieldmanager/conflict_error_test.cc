// kube's conflict_test.go (NewConflictError) and handlers/rest.go's managerOrUserAgent.
#include "server/fieldmanager/field_manager.h"
#include "server/fieldmanager/manager.h"

#include <gtest/gtest.h>

namespace kapi::fieldmanager::conflict_error_test {
namespace {

namespace sm = structured_merge;

sm::Path path(std::initializer_list<const char*> fields) {
  sm::Path out;
  for (const char* field : fields) out.push_back(sm::PathElement::field(field));
  return out;
}

void expect_cause(const apierrors::StatusCause& cause, std::string_view message, std::string_view field) {
  EXPECT_EQ(cause.reason, "FieldManagerConflict");
  EXPECT_EQ(cause.message, message);
  EXPECT_EQ(cause.field, field);
}

TEST(FieldManagerConflictError, OneConflict) {
  apierrors::Status status = internal::conflict_error(
      {{R"({"manager":"foo","operation":"Update","apiVersion":"v1","time":"2001-02-03T04:05:06Z"})",
        path({"spec", "replicas"})}});
  EXPECT_EQ(status.code, 409);
  EXPECT_EQ(status.reason, "Conflict");
  EXPECT_EQ(status.message,
            R"(Apply failed with 1 conflict: conflict with "foo" using v1 at 2001-02-03T04:05:06Z: .spec.replicas)");
  ASSERT_TRUE(status.details);
  EXPECT_EQ(status.details->name, "");
  ASSERT_EQ(status.details->causes.size(), 1u);
  expect_cause(status.details->causes[0], R"(conflict with "foo" using v1 at 2001-02-03T04:05:06Z)", ".spec.replicas");
}

TEST(FieldManagerConflictError, ConflictsGroupedBySortedManager) {
  apierrors::Status status = internal::conflict_error(
      {{R"({"manager":"foo","operation":"Update","apiVersion":"v1","time":"2001-02-03T04:05:06Z"})",
        path({"spec", "replicas"})},
       {R"({"manager":"bar","operation":"Apply"})", path({"metadata", "labels", "app"})}});
  EXPECT_EQ(status.message,
            "Apply failed with 2 conflicts: conflicts with \"bar\":\n- .metadata.labels.app\n"
            "conflicts with \"foo\" using v1 at 2001-02-03T04:05:06Z:\n- .spec.replicas");
  ASSERT_EQ(status.details->causes.size(), 2u);
  expect_cause(status.details->causes[0], R"(conflict with "foo" using v1 at 2001-02-03T04:05:06Z)", ".spec.replicas");
  expect_cause(status.details->causes[1], R"(conflict with "bar")", ".metadata.labels.app");
}

TEST(FieldManagerConflictError, Subresource) {
  apierrors::Status status = internal::conflict_error(
      {{R"({"manager":"foo","operation":"Update","subresource":"scale","apiVersion":"v1","time":"2001-02-03T04:05:06Z"})",
        path({"spec", "replicas"})}});
  EXPECT_EQ(status.message, R"(Apply failed with 1 conflict: conflict with "foo" with subresource "scale" using v1 at )"
                            R"(2001-02-03T04:05:06Z: .spec.replicas)");
  expect_cause(status.details->causes[0], R"(conflict with "foo" with subresource "scale" using v1 at 2001-02-03T04:05:06Z)",
               ".spec.replicas");
}

TEST(FieldManagerConflictError, IdentifiersAsTheChainBuildsThem) {
  // What a client sees in practice: identifiers carry no time.
  apierrors::Status status = internal::conflict_error(
      {{R"({"manager":"kubectl","operation":"Update","apiVersion":"v1"})", path({"data", "a"})}});
  EXPECT_EQ(status.message, R"(Apply failed with 1 conflict: conflict with "kubectl" using v1: .data.a)");
  expect_cause(status.details->causes[0], R"(conflict with "kubectl" using v1)", ".data.a");
}

TEST(FieldManagerConflictError, NotAnIdentifierIsQuotedWhole) {
  apierrors::Status status = internal::conflict_error({{"plain\tname", path({"data"})}});
  EXPECT_EQ(status.message, R"(Apply failed with 1 conflict: conflict with "plain\tname": .data)");
}

TEST(ManagerOrUserAgent, FieldManagerWins) {
  EXPECT_EQ(manager_or_user_agent("helm", "kubectl/v1.32.0 (linux/amd64) kubernetes/abcdef"), "helm");
}

TEST(ManagerOrUserAgent, UserAgentUpToFirstSlash) {
  EXPECT_EQ(manager_or_user_agent("", "kubectl/v1.32.0 (linux/amd64) kubernetes/abcdef"), "kubectl");
  EXPECT_EQ(manager_or_user_agent("", "kube-controller-manager/v1.32.0 (linux/amd64) kubernetes/abc/system:serviceaccount"),
            "kube-controller-manager");
  EXPECT_EQ(manager_or_user_agent("", "Go-http-client/1.1"), "Go-http-client");
  EXPECT_EQ(manager_or_user_agent("", "no slash at all"), "no slash at all");
  EXPECT_EQ(manager_or_user_agent("", ""), "");
}

TEST(ManagerOrUserAgent, NonPrintableRunesDropped) {
  EXPECT_EQ(manager_or_user_agent("", "a\tb\x01" "c/1"), "abc");
  // An invalid byte is U+FFFD in Go's range loop, which prints.
  EXPECT_EQ(manager_or_user_agent("", "a\xff" "b"), "a\xEF\xBF\xBD" "b");
}

TEST(ManagerOrUserAgent, TrimmedTo128Bytes) {
  EXPECT_EQ(manager_or_user_agent("", std::string(200, 'x') + "/1"), std::string(128, 'x'));
  // A rune that would cross the limit is left out whole.
  std::string agent = std::string(127, 'x') + "\xC3\xA9";
  EXPECT_EQ(manager_or_user_agent("", agent), std::string(127, 'x'));
}

}  // namespace
}  // namespace kapi::fieldmanager::conflict_error_test
