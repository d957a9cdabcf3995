#include "server/audit/event.h"
#include "server/audit/go_json.h"

#include <gtest/gtest.h>

namespace kapi::audit::event_test {
namespace {

using namespace std::chrono;

system_clock::time_point at(std::int64_t micros) { return system_clock::time_point(microseconds(micros)); }

TEST(AuditEventTest, MicroTimeIsUtcWithMicroseconds) {
  EXPECT_EQ(format_micro_time(at(0)), "1970-01-01T00:00:00.000000Z");
  EXPECT_EQ(format_micro_time(at(1700000000123456)), "2023-11-14T22:13:20.123456Z");
  EXPECT_EQ(format_micro_time(at(1700000000000007)), "2023-11-14T22:13:20.000007Z");
}

TEST(AuditEventTest, MinimalEventOmitsEmptyFields) {
  Event event;
  event.level = Level::Metadata;
  event.audit_id = "a1";
  event.stage = Stage::ResponseStarted;
  event.request_uri = "/api";
  event.verb = "get";
  event.response_status = ResponseStatus{.message = "Authentication failed, attempted: bearer", .code = 401};
  event.request_received_timestamp = at(1700000000000001);
  event.stage_timestamp = at(1700000000000002);
  EXPECT_EQ(to_json(event),
            R"({"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"a1","stage":"ResponseStarted",)"
            R"("requestURI":"/api","verb":"get","user":{},"responseStatus":{"metadata":{},)"
            R"("message":"Authentication failed, attempted: bearer","code":401},)"
            R"("requestReceivedTimestamp":"2023-11-14T22:13:20.000001Z","stageTimestamp":"2023-11-14T22:13:20.000002Z"})");
}

TEST(AuditEventTest, FullEventInGoFieldOrder) {
  Event event;
  event.level = Level::RequestResponse;
  event.audit_id = "id";
  event.stage = Stage::ResponseComplete;
  event.request_uri = "/api/v1/namespaces/default/configmaps?fieldManager=kubectl";
  event.verb = "create";
  event.user = {.name = "jane", .uid = "u1", .groups = {"dev", "system:authenticated"}, .extra = {{"scopes", {"a", "b"}}}};
  event.impersonated_user = request::UserInfo{.name = "bob", .groups = {"system:authenticated"}};
  event.source_ips = {"127.0.0.1"};
  event.user_agent = "kubectl/v1.32 <test>";
  event.object_ref = ObjectReference{.resource = "configmaps", .namespace_ = "default", .name = "c", .api_version = "v1"};
  event.response_status = ResponseStatus{.code = 201};
  event.request_object = "{\n  \"kind\": \"ConfigMap\", \"data\": {\"k\": \"v & w\"}, \"n\": 0.5, \"big\": 1e21 }";
  event.response_object = R"({"kind":"ConfigMap","metadata":{"name":"c","managedFields":[{"manager":"kubectl"}]}})";
  event.omit_managed_fields = true;
  event.request_received_timestamp = at(0);
  event.stage_timestamp = at(1);
  event.annotations = {{"authorization.k8s.io/reason", ""}, {"authorization.k8s.io/decision", "allow"}};
  EXPECT_EQ(to_json(event),
            R"({"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"RequestResponse","auditID":"id",)"
            R"("stage":"ResponseComplete","requestURI":"/api/v1/namespaces/default/configmaps?fieldManager=kubectl",)"
            R"("verb":"create","user":{"username":"jane","uid":"u1","groups":["dev","system:authenticated"],)"
            R"("extra":{"scopes":["a","b"]}},"impersonatedUser":{"username":"bob","groups":["system:authenticated"]},)"
            R"("sourceIPs":["127.0.0.1"],"userAgent":"kubectl/v1.32 \u003ctest\u003e",)"
            R"("objectRef":{"resource":"configmaps","namespace":"default","name":"c","apiVersion":"v1"},)"
            R"("responseStatus":{"metadata":{},"code":201},)"
            R"("requestObject":{"kind":"ConfigMap","data":{"k":"v \u0026 w"},"n":0.5,"big":1e+21},)"
            R"("responseObject":{"kind":"ConfigMap","metadata":{"name":"c"}},)"
            R"("requestReceivedTimestamp":"1970-01-01T00:00:00.000000Z","stageTimestamp":"1970-01-01T00:00:00.000001Z",)"
            R"("annotations":{"authorization.k8s.io/decision":"allow","authorization.k8s.io/reason":""}})");
}

TEST(AuditEventTest, StatusDetailsAndNonJsonBodies) {
  Event event;
  event.response_status = ResponseStatus{.status = "Failure", .message = "configmaps \"x\" not found", .reason = "NotFound",
                                         .details = R"({"name":"x","kind":"configmaps"})", .code = 404};
  event.request_object = "not json";
  std::string json = to_json(event);
  EXPECT_NE(json.find(R"("responseStatus":{"metadata":{},"status":"Failure","message":"configmaps \"x\" not found",)"
                      R"("reason":"NotFound","details":{"name":"x","kind":"configmaps"},"code":404})"),
            std::string::npos)
      << json;
  EXPECT_EQ(json.find("requestObject"), std::string::npos);
}

TEST(AuditEventTest, GoStringEscaping) {
  std::string out;
  append_go_json_string(out, "a\"b\\c\n\t\x01<>&\xe2\x80\xa8\xff é");
  EXPECT_EQ(out, R"("a\"b\\c\n\t\u0001\u003c\u003e\u0026\u2028\ufffd é")");
  EXPECT_EQ(compact_go_json("[1, -2, 0.000001, 1e-7, 3.25, true, null]", false), "[1,-2,0.000001,1e-7,3.25,true,null]");
  EXPECT_EQ(compact_go_json(R"({"items":[{"metadata":{"managedFields":[],"name":"a"}}]})", true),
            R"({"items":[{"metadata":{"name":"a"}}]})");
  EXPECT_EQ(compact_go_json("{", false), std::nullopt);
}

TEST(AuditEventTest, SourceIps) {
  http::Headers headers;
  EXPECT_EQ(source_ips(headers, "127.0.0.1:5000"), std::vector<std::string>{"127.0.0.1"});
  EXPECT_EQ(source_ips(headers, "[::1]:5000"), std::vector<std::string>{"::1"});
  headers.set("X-Forwarded-For", "10.0.0.1, bogus, 10.0.0.2");
  headers.set("X-Real-Ip", "10.0.0.1");
  EXPECT_EQ(source_ips(headers, "10.0.0.2:1"), (std::vector<std::string>{"10.0.0.1", "10.0.0.2"}));
  EXPECT_EQ(source_ips(headers, "127.0.0.1:1"), (std::vector<std::string>{"10.0.0.1", "10.0.0.2", "127.0.0.1"}));
}

}  // namespace
}  // namespace kapi::audit::event_test
