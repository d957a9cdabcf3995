#pragma once
// The real kapi-apiserver binary as a child process, for integration tests: a fresh temporary --data-dir, a free
// --secure-port, the testing endpoints on, and whatever extra flags a test needs. The constructor returns once
// /readyz answers 200 over TLS. stdout and stderr go to files in the temp dir (logs() for failure messages); the
// destructor kills the process and removes the temp dir.
#include "tests/support/http_client.h"

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kapi::test_support {

class EtcdProcess;

// KAPI_TEST_STORE=etcd runs a suite on a real etcd, started by its KapiProcess, instead of the embedded store
// (unless the suite names --etcd-servers itself), with --controllers=* unless the suite names --controllers, since
// kapi's default on etcd is none: the README's test command runs the end-to-end suites so too.
struct KapiOptions {
  std::vector<std::string> extra_flags;  // e.g. "--max-requests-inflight=2"
  std::chrono::milliseconds startup_timeout{20'000};
  std::filesystem::path binary;  // empty: $KAPI_BINARY
  // The --data-dir, owned by the caller (kept when the process goes, for a restart on the same data); empty: a
  // fresh one under the process's work dir.
  std::filesystem::path data_dir;
  // A test of the embedded store itself (kill -9 on its data, a full disk): KAPI_TEST_STORE=etcd leaves it there.
  bool embedded_store = false;
};

class KapiProcess {
 public:
  // Starts kapi and waits until it is ready; throws std::runtime_error (with kapi's output) when it is not.
  explicit KapiProcess(KapiOptions options = {});
  ~KapiProcess();
  KapiProcess(const KapiProcess&) = delete;
  KapiProcess& operator=(const KapiProcess&) = delete;

  int port() const { return port_; }
  pid_t pid() const { return pid_; }
  bool running() const { return pid_ > 0; }
  const std::filesystem::path& data_dir() const { return data_dir_; }
  std::filesystem::path cert_dir() const { return data_dir_ / "pki"; }
  std::filesystem::path ca_cert() const { return cert_dir() / "ca.crt"; }
  std::filesystem::path admin_cert() const { return cert_dir() / "admin.crt"; }
  std::filesystem::path admin_key() const { return cert_dir() / "admin.key"; }
  std::filesystem::path admin_kubeconfig() const { return cert_dir() / "admin.kubeconfig"; }
  // A scratch directory that goes away with the process (for a test's own files).
  const std::filesystem::path& work_dir() const { return work_dir_; }

  // TLS settings that trust kapi's CA: as the admin (CN=kapi-admin, O=system:masters) or with no client
  // certificate (system:anonymous).
  TlsClientOptions admin_tls() const;
  TlsClientOptions anonymous_tls() const;
  // A fresh TLS connection to kapi.
  HttpConnection connect_admin() const { return HttpConnection(port_, admin_tls()); }
  HttpConnection connect_anonymous() const { return HttpConnection(port_, anonymous_tls()); }

  void send_signal(int signal) const;
  void terminate() const;  // SIGTERM: graceful shutdown
  void kill();             // SIGKILL and reap
  // Waits up to `bound` for the process to exit; its exit code (128 + signal when a signal ended it), or
  // std::nullopt when it is still running.
  std::optional<int> wait_for_exit(std::chrono::milliseconds bound);
  // SIGTERM and wait up to `bound`; the exit code, or std::nullopt when it had to be SIGKILLed.
  std::optional<int> shut_down(std::chrono::milliseconds bound);

  std::string stdout_text() const;
  std::string stderr_text() const;
  // How many times `text` occurs in both outputs (a request log line per request at -v=3, say).
  std::size_t occurrences_in_output(std::string_view text) const;
  // The tails of both outputs, labelled, for a failing test's message.
  std::string logs() const;
  // The lines of stderr where AddressSanitizer, LeakSanitizer or UBSan reported something; empty when clean.
  std::string sanitizer_reports() const;

 private:
  void spawn(const std::vector<std::string>& arguments);
  bool wait_until_ready(std::chrono::milliseconds bound);

  KapiOptions options_;
  std::unique_ptr<EtcdProcess> etcd_;  // KAPI_TEST_STORE=etcd: the etcd kapi stores in, outliving kapi
  std::filesystem::path work_dir_;
  std::filesystem::path data_dir_;
  std::filesystem::path stdout_file_;
  std::filesystem::path stderr_file_;
  int port_ = 0;
  pid_t pid_ = -1;
  std::optional<int> exit_code_;
};

// A port nobody listened on a moment ago (bound to port 0 on loopback and released).
int pick_free_port();

}  // namespace kapi::test_support
