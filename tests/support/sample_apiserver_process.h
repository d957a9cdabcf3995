#pragma once
// kapi-sample-apiserver (tests/support/sample_apiserver) as a child process, for the aggregator's integration
// tests: the extension API server an APIService points at. It gets a temporary --cert-dir and --request-log and
// a free port (--secure-port=0; the port is read from its "serving on" line, so no other process can take it in
// between). The constructor returns once it listens; restart() brings it back on the same port with the same
// certificates; the destructor kills it and removes the temp dir.
#include "tests/support/http_client.h"

#include <boost/json/object.hpp>

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace kapi::test_support {

struct SampleApiServerOptions {
  // --requestheader-client-ca-file, e.g. a KapiProcess's cert_dir() / "front-proxy-ca.crt"; empty: the server
  // authenticates nobody and trusts the X-Remote-* headers as sent.
  std::filesystem::path requestheader_client_ca_file;
  std::vector<std::string> requestheader_allowed_names = {"front-proxy-client"};
  std::string server_name = "api.wardle-system.svc";  // the serving certificate's DNS name (127.0.0.1 is added)
  bool redirect_resources = false;                    // --redirect-resources
  std::vector<std::string> extra_flags;
  std::chrono::milliseconds startup_timeout{10'000};
  std::filesystem::path binary;  // empty: $KAPI_SAMPLE_APISERVER
};

class SampleApiServerProcess {
 public:
  // Starts the server and waits until it listens; throws std::runtime_error (with its output) when it does not.
  explicit SampleApiServerProcess(SampleApiServerOptions options = {});
  ~SampleApiServerProcess();
  SampleApiServerProcess(const SampleApiServerProcess&) = delete;
  SampleApiServerProcess& operator=(const SampleApiServerProcess&) = delete;

  int port() const { return port_; }
  pid_t pid() const { return pid_; }
  bool running() const { return pid_ > 0; }
  const SampleApiServerOptions& options() const { return options_; }

  std::filesystem::path cert_dir() const { return work_dir_ / "certs"; }
  // The CA of its serving certificate: what an APIService's caBundle holds.
  std::filesystem::path ca_cert() const { return cert_dir() / "ca.crt"; }
  std::string ca_bundle_pem() const;
  std::string ca_bundle_base64() const;  // spec.caBundle's JSON form
  std::filesystem::path request_log_file() const { return work_dir_ / "requests.log"; }
  // The request log's lines so far, parsed: method, path, query, user, uid, groups, extra, clientCN.
  std::vector<boost::json::object> requests() const;
  // The logged requests whose path is `path`.
  std::vector<boost::json::object> requests_for(std::string_view path) const;

  // TLS settings that trust its CA (checking server_name) and present `cert_file`/`key_file` (none when empty).
  TlsClientOptions tls(const std::filesystem::path& cert_file = {}, const std::filesystem::path& key_file = {}) const;

  void stop();  // SIGTERM and wait up to 5 s (then SIGKILL); the exit code stays in exit_code()
  void kill();  // SIGKILL and reap
  // Starts it again on the same port, cert dir and request log (after stop() or kill(); stops it first if not).
  void restart();
  std::optional<int> exit_code() const { return exit_code_; }
  // Waits up to `bound` for the process to exit; its exit code (128 + signal), or std::nullopt if still running.
  std::optional<int> wait_for_exit(std::chrono::milliseconds bound);

  std::string stdout_text() const;
  std::string stderr_text() const;
  std::string logs() const;  // both outputs, labelled, for a failing test's message

 private:
  void spawn(int port);
  // Until the "serving on" line names the port; false when the process exits or the bound passes.
  bool wait_until_listening(std::chrono::milliseconds bound);

  SampleApiServerOptions options_;
  std::filesystem::path work_dir_;
  int port_ = 0;
  pid_t pid_ = -1;
  std::optional<int> exit_code_;
};

}  // namespace kapi::test_support
