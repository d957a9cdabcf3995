#pragma once
// A test suite that shares one kapi-apiserver among its tests (starting the binary is the slow part). A suite
// names its flags with `static KapiOptions kapi_options()`; a failing test prints the tail of kapi's output.
#include "tests/support/http_client.h"
#include "tests/support/kapi_process.h"
#include "tests/support/temp_dir.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <chrono>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace kapi::integration {

using test_support::HttpConnection;
using test_support::HttpResponse;
using test_support::KapiOptions;
using test_support::KapiProcess;

// Flags for a kapi whose users come from a --token-auth-file holding `tokens_csv` (token,user,uid[,"groups"]
// lines), written into a directory named after `suite` that lives as long as the test program; `flags` follow.
inline KapiOptions with_token_users(const std::string& suite, std::string_view tokens_csv,
                                    std::vector<std::string> flags) {
  static std::vector<std::unique_ptr<test_support::TempDir>> dirs;  // one per suite, for the program's lifetime
  const auto& dir = dirs.emplace_back(std::make_unique<test_support::TempDir>("kapi-" + suite + "-suite"));
  std::ofstream(dir->path() / "tokens.csv") << tokens_csv;
  KapiOptions options;
  options.extra_flags = {"--token-auth-file=" + (dir->path() / "tokens.csv").string()};
  options.extra_flags.insert(options.extra_flags.end(), flags.begin(), flags.end());
  return options;
}

template <typename Suite>
class KapiSuite : public ::testing::Test {
 protected:
  static KapiOptions kapi_options() { return {}; }

  static void SetUpTestSuite() { kapi_ = std::make_unique<KapiProcess>(Suite::kapi_options()); }
  // Every suite ends with a graceful shutdown: kapi must exit 0 and, in a sanitizer build, report nothing
  // (leaks are only checked at a normal exit).
  static void TearDownTestSuite() {
    if (!kapi_) return;
    auto exit_code = kapi_->shut_down(std::chrono::seconds(20));
    EXPECT_EQ(exit_code, 0) << "kapi-apiserver did not shut down cleanly\n" << kapi_->logs();
    EXPECT_EQ(kapi_->sanitizer_reports(), "") << kapi_->logs();
    kapi_.reset();
  }

  void SetUp() override { ASSERT_NE(kapi_, nullptr) << "kapi-apiserver did not start (see the suite's failure)"; }
  void TearDown() override {
    if (!kapi_) return;
    EXPECT_EQ(kapi_->sanitizer_reports(), "");
    if (HasFailure()) std::cerr << kapi_->logs();
  }

  static KapiProcess& kapi() { return *kapi_; }

 private:
  static inline std::unique_ptr<KapiProcess> kapi_;
};

// The body as JSON (a failed parse fails the test with the body in the message).
inline boost::json::object json_object(const std::string& body) {
  boost::system::error_code error;
  auto value = boost::json::parse(body, error);
  EXPECT_FALSE(error) << "not JSON: " << body;
  if (error || !value.is_object()) return {};
  return value.as_object();
}

// Checks that `response` is a metav1.Status failure with this code and reason.
inline ::testing::AssertionResult is_status(const HttpResponse& response, int code, std::string_view reason) {
  if (response.status != code)
    return ::testing::AssertionFailure() << "HTTP status " << response.status << ", want " << code << "; body "
                                         << response.body;
  boost::system::error_code error;
  auto value = boost::json::parse(response.body, error);
  if (error || !value.is_object()) return ::testing::AssertionFailure() << "body is not a JSON object: " << response.body;
  const auto& object = value.as_object();
  auto text = [&](const char* key) -> std::string {
    const auto* field = object.if_contains(key);
    return field && field->is_string() ? std::string(field->as_string()) : "";
  };
  const auto* json_code = object.if_contains("code");
  if (text("kind") != "Status" || text("apiVersion") != "v1" || text("status") != "Failure" || text("reason") != reason ||
      !json_code || !json_code->is_int64() || json_code->as_int64() != code)
    return ::testing::AssertionFailure() << "not a " << code << " " << reason << " Status: " << response.body;
  if (auto type = response.header("Content-Type"); !type || type->find("application/json") == std::string::npos)
    return ::testing::AssertionFailure() << "Status without Content-Type application/json";
  return ::testing::AssertionSuccess();
}

inline std::string status_message(const HttpResponse& response) {
  auto object = json_object(response.body);
  const auto* message = object.if_contains("message");
  return message && message->is_string() ? std::string(message->as_string()) : "";
}

// The causes of a Status (a 422's field errors) as "field: reason: message" lines.
inline std::string status_causes(const HttpResponse& response) {
  std::string out;
  auto status = json_object(response.body);
  if (auto* details = status.if_contains("details"); details && details->is_object())
    if (auto* list = details->as_object().if_contains("causes"); list && list->is_array())
      for (const auto& cause : list->as_array())
        out += std::string(cause.at("field").as_string()) + ": " + std::string(cause.at("reason").as_string()) +
               ": " + std::string(cause.at("message").as_string()) + "\n";
  return out;
}

// Seconds since `start`, for timing assertions.
inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Polls `ready` every `period` for up to `bound` (what a controller or another server does in its own time);
// whether it came true.
inline bool eventually(const std::function<bool()>& ready,
                       std::chrono::steady_clock::duration bound = std::chrono::seconds(15),
                       std::chrono::steady_clock::duration period = std::chrono::milliseconds(50)) {
  for (const auto deadline = std::chrono::steady_clock::now() + bound; std::chrono::steady_clock::now() < deadline;
       std::this_thread::sleep_for(period))
    if (ready()) return true;
  return ready();
}

// Admission plugins read other objects (the default StorageClass, the PriorityClasses) from the watch cache, as
// kube's read them from informers: one written a moment ago may not be there yet. Whether a LIST from the cache of
// `collection` names `name` within 5 s.
inline bool listed_in_cache(KapiProcess& kapi, const std::string& collection, const std::string& name) {
  return eventually(
      [&] {
        HttpResponse list = kapi.connect_admin().request("GET", collection + "?resourceVersion=0");
        return list.status == 200 && list.body.find("\"name\":\"" + name + "\"") != std::string::npos;
      },
      std::chrono::seconds(5), std::chrono::milliseconds(5));
}

}  // namespace kapi::integration
