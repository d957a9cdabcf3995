#pragma once
// kapi-sample-webhook (tests/support/sample_webhook) as a child process for the admission webhook tests: a
// temporary --cert-dir and --request-log, a free port read from its "serving on" line. The constructor returns
// once it listens; the destructor kills it and removes its files.
#include <boost/json/object.hpp>

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

namespace kapi::test_support {

class SampleWebhookProcess {
 public:
  // `server_name`: the DNS name its serving certificate names besides 127.0.0.1 (a Service's
  // "<name>.<namespace>.svc"). `binary` empty: $KAPI_SAMPLE_WEBHOOK. Throws std::runtime_error with its output
  // when it does not start.
  // `bind_address`: 0.0.0.0 for a webhook reached through Endpoints (which may not name loopback).
  explicit SampleWebhookProcess(std::string server_name = "sample-webhook.default.svc",
                                std::string bind_address = "127.0.0.1", std::filesystem::path binary = {});
  ~SampleWebhookProcess();
  SampleWebhookProcess(const SampleWebhookProcess&) = delete;
  SampleWebhookProcess& operator=(const SampleWebhookProcess&) = delete;

  int port() const { return port_; }
  std::string url(std::string_view path) const;  // "https://127.0.0.1:<port><path>"
  std::string ca_bundle_base64() const;          // clientConfig.caBundle
  // The reviews received so far, each {"path", "query", "review"}; those for one path.
  std::vector<boost::json::object> requests() const;
  std::vector<boost::json::object> requests_for(std::string_view path) const;
  std::string logs() const;

 private:
  std::filesystem::path work_dir_;
  pid_t pid_ = -1;
  int port_ = 0;
};

}  // namespace kapi::test_support
