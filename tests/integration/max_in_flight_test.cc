// WithMaxInFlightLimit against the real server: beyond --max-requests-inflight read-only (or
// --max-mutating-requests-inflight mutating) requests, an anonymous caller gets 429 TooManyRequests with
// Retry-After; system:masters (the admin certificate) is exempt, as in kube-apiserver.
#include "tests/integration/kapi_suite.h"

#include <thread>

namespace kapi::integration::max_in_flight_test {
namespace {

using namespace std::chrono_literals;

class MaxInFlightTest : public KapiSuite<MaxInFlightTest> {
 public:
  static KapiOptions kapi_options() {
    KapiOptions options;
    // Priority and fairness replaces max-in-flight unless it is turned off, as in kube-apiserver.
    // Anonymous callers may use the testing endpoints only with AlwaysAllow.
    options.extra_flags = {"--max-requests-inflight=2", "--max-mutating-requests-inflight=1",
                           "--enable-priority-and-fairness=false", "--authorization-mode=AlwaysAllow"};
    return options;
  }

 protected:
  // Sends `method` `target` from a fresh anonymous connection until it is refused with 429, giving the requests
  // that fill the limit time to arrive; the refusal, or the last answer when none came.
  HttpResponse anonymous_until_refused(std::string_view method, std::string_view target) {
    HttpResponse last;
    auto give_up = std::chrono::steady_clock::now() + 10s;
    do {
      last = kapi().connect_anonymous().request(method, target);
      if (last.status == 429) break;
      std::this_thread::sleep_for(50ms);
    } while (std::chrono::steady_clock::now() < give_up);
    return last;
  }

  static void expect_too_many_requests(const HttpResponse& response) {
    EXPECT_TRUE(is_status(response, 429, "TooManyRequests"));
    EXPECT_FALSE(response.has_header("X-Kubernetes-PF-PriorityLevel-UID"));
    EXPECT_EQ(response.header("Retry-After"), "1");
    EXPECT_EQ(status_message(response), "Too many requests, please try again later.");
  }
};

TEST_F(MaxInFlightTest, ReadOnlyRequestsBeyondTheLimitGet429) {
  HttpConnection first = kapi().connect_anonymous();
  HttpConnection second = kapi().connect_anonymous();
  const std::string hold = "GET /debug/kapi/sleep?duration=3s HTTP/1.1\r\nHost: kapi\r\n\r\n";
  first.send(hold);
  second.send(hold);
  std::this_thread::sleep_for(200ms);

  HttpResponse refused = anonymous_until_refused("GET", "/version");
  expect_too_many_requests(refused);
  HttpResponse admin = kapi().connect_admin().request("GET", "/version");
  EXPECT_EQ(admin.status, 200) << "system:masters is exempt from max-in-flight";
  // The mutating budget is a separate one.
  HttpResponse post = kapi().connect_anonymous().request("POST", "/debug/kapi/echo", {}, "body");
  EXPECT_EQ(post.status, 200);
  EXPECT_EQ(post.body, "body");

  EXPECT_EQ(first.read_response().status, 200);
  EXPECT_EQ(second.read_response().status, 200);
  // Both slots are free again.
  EXPECT_EQ(kapi().connect_anonymous().request("GET", "/version").status, 200);
  HttpResponse metrics = kapi().connect_admin().request("GET", "/metrics");
  EXPECT_NE(metrics.body.find("apiserver_dropped_requests_total{request_kind=\"readOnly\"}"), std::string::npos);
}

TEST_F(MaxInFlightTest, MutatingRequestsBeyondTheLimitGet429) {
  HttpConnection holder = kapi().connect_anonymous();
  // A non-resource POST has the verb "post": mutating.
  holder.send("POST /debug/kapi/sleep?duration=3s HTTP/1.1\r\nHost: kapi\r\nContent-Length: 0\r\n\r\n");
  std::this_thread::sleep_for(200ms);

  HttpResponse refused = anonymous_until_refused("POST", "/debug/kapi/echo");
  expect_too_many_requests(refused);
  HttpResponse admin = kapi().connect_admin().request("POST", "/debug/kapi/echo", {}, "admin");
  EXPECT_EQ(admin.status, 200);
  EXPECT_EQ(admin.body, "admin");
  // Read-only requests have their own budget.
  EXPECT_EQ(kapi().connect_anonymous().request("GET", "/version").status, 200);

  EXPECT_EQ(holder.read_response("POST").status, 200);
  EXPECT_EQ(kapi().connect_anonymous().request("POST", "/debug/kapi/echo", {}, "again").status, 200);
}

}  // namespace
}  // namespace kapi::integration::max_in_flight_test
