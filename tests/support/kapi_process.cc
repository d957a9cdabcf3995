#include "tests/support/kapi_process.h"

#include "tests/support/child_process.h"
#include "tests/support/child_reaping.h"
#include "tests/support/etcd_process.h"
#include "tests/support/loopback.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <system_error>
#include <thread>

namespace kapi::test_support {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// The last `count` lines: a failing test's message shows how kapi ended, not all it ever said.
std::string tail(const std::string& text, std::size_t count) {
  std::size_t start = text.size();
  for (std::size_t lines = 0; start > 0 && lines <= count;) {
    --start;
    if (text[start] == '\n') ++lines;
  }
  return start == 0 ? text : "[...]" + text.substr(start);
}

}  // namespace

int pick_free_port() {
  for (int attempt = 0;; ++attempt) {
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) throw std::system_error(errno, std::system_category(), "socket");
    sockaddr_in address = loopback(0);
    socklen_t length = sizeof address;
    bool bound = ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
                 ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0;
    int error = errno;
    ::close(fd);
    if (bound) return ntohs(address.sin_port);
    if (attempt == 10) throw std::system_error(error, std::system_category(), "bind to a free port");
  }
}

KapiProcess::KapiProcess(KapiOptions options) : options_(std::move(options)) {
  if (options_.binary.empty()) options_.binary = binary_from_environment("KAPI_BINARY");
  const char* store = std::getenv("KAPI_TEST_STORE");
  const bool names_etcd = std::any_of(options_.extra_flags.begin(), options_.extra_flags.end(),
                                      [](const std::string& flag) { return flag.starts_with("--etcd-servers"); });
  if (store != nullptr && std::string_view(store) == "etcd" && !names_etcd && !options_.embedded_store) {
    etcd_ = std::make_unique<EtcdProcess>();
    options_.extra_flags.push_back("--etcd-servers=" + etcd_->endpoint());
    // With --etcd-servers kapi runs no controller unless told (a kube-controller-manager is expected): a suite
    // moved onto etcd keeps the embedded store's behaviour.
    const bool names_controllers =
        std::any_of(options_.extra_flags.begin(), options_.extra_flags.end(),
                    [](const std::string& flag) { return flag.starts_with("--controllers"); });
    if (!names_controllers) options_.extra_flags.push_back("--controllers=*");
  }
  std::string pattern = (std::filesystem::temp_directory_path() / "kapi-itest-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error(std::string("mkdtemp: ") + std::strerror(errno));
  work_dir_ = pattern;
  data_dir_ = options_.data_dir.empty() ? work_dir_ / "data" : options_.data_dir;
  stdout_file_ = work_dir_ / "kapi.stdout";
  stderr_file_ = work_dir_ / "kapi.stderr";

  // The free port may be taken by someone else before kapi binds it: a start that fails is retried on a new one.
  std::string failures;
  for (int attempt = 0; attempt < 3; ++attempt) {
    port_ = pick_free_port();
    std::vector<std::string> arguments = {
        options_.binary.string(),
        "--bind-address=127.0.0.1",
        "--secure-port=" + std::to_string(port_),
        "--data-dir=" + data_dir_.string(),
        "--enable-testing-endpoints",
    };
    arguments.insert(arguments.end(), options_.extra_flags.begin(), options_.extra_flags.end());
    spawn(arguments);
    if (wait_until_ready(options_.startup_timeout)) return;
    failures += "attempt " + std::to_string(attempt + 1) + " on port " + std::to_string(port_) + ":\n" + logs();
    bool exited = !running();
    kill();
    if (!exited) break;  // it hung rather than failed to bind: another port will not help
    std::error_code ignored;
    if (options_.data_dir.empty()) std::filesystem::remove_all(data_dir_, ignored);
  }
  std::error_code ignored;
  std::filesystem::remove_all(work_dir_, ignored);
  throw std::runtime_error("kapi-apiserver did not become ready\n" + failures);
}

KapiProcess::~KapiProcess() {
  kill();
  std::error_code ignored;
  std::filesystem::remove_all(work_dir_, ignored);
}

void KapiProcess::spawn(const std::vector<std::string>& arguments) {
  pid_ = spawn_child(arguments, stdout_file_, stderr_file_, "kapi", StderrFile::kTruncate);
  exit_code_.reset();
}

bool KapiProcess::wait_until_ready(std::chrono::milliseconds bound) {
  const auto deadline = Clock::now() + bound;
  while (Clock::now() < deadline) {
    if (wait_for_exit(0ms)) return false;
    if (std::filesystem::exists(ca_cert()) && std::filesystem::exists(admin_key())) {
      try {
        // As the admin: a suite may run kapi with --anonymous-auth=false.
        HttpConnection connection(port_, admin_tls(), 2s);
        if (connection.request("GET", "/readyz", {}, {}, 2s).status == 200) return true;
      } catch (const std::exception&) {
        // not listening yet, or the certificates are still being written
      }
    }
    std::this_thread::sleep_for(50ms);
  }
  return false;
}

TlsClientOptions KapiProcess::admin_tls() const {
  TlsClientOptions tls;
  tls.ca_file = ca_cert();
  tls.cert_file = admin_cert();
  tls.key_file = admin_key();
  return tls;
}

TlsClientOptions KapiProcess::anonymous_tls() const {
  TlsClientOptions tls;
  tls.ca_file = ca_cert();
  return tls;
}

void KapiProcess::send_signal(int signal) const {
  if (running()) ::kill(pid_, signal);
}

void KapiProcess::terminate() const { send_signal(SIGTERM); }

void KapiProcess::kill() {
  if (!running()) return;
  ::kill(-pid_, SIGKILL);  // the whole group, should kapi ever start helpers
  ::kill(pid_, SIGKILL);
  exit_code_ = reap(pid_);
  pid_ = -1;
}

std::optional<int> KapiProcess::wait_for_exit(std::chrono::milliseconds bound) {
  if (!running()) return exit_code_;
  std::optional<int> code = reap_within(pid_, bound);
  if (!code) return std::nullopt;
  exit_code_ = code;
  pid_ = -1;
  return exit_code_;
}

std::optional<int> KapiProcess::shut_down(std::chrono::milliseconds bound) {
  terminate();
  if (auto code = wait_for_exit(bound)) return code;
  kill();
  return std::nullopt;
}

std::string KapiProcess::stdout_text() const { return read_file(stdout_file_); }

std::string KapiProcess::stderr_text() const { return read_file(stderr_file_); }

std::size_t KapiProcess::occurrences_in_output(std::string_view text) const {
  const std::string out = stdout_text() + stderr_text();
  std::size_t count = 0;
  for (std::size_t at = out.find(text); at != std::string::npos; at = out.find(text, at + 1)) ++count;
  return count;
}

std::string KapiProcess::logs() const {
  return "----- kapi-apiserver stdout -----\n" + tail(stdout_text(), 50) + "----- kapi-apiserver stderr -----\n" +
         tail(stderr_text(), 150) + "---------------------------------\n";
}

std::string KapiProcess::sanitizer_reports() const {
  std::istringstream lines(stderr_text());
  std::string reports;
  for (std::string line; std::getline(lines, line);) {
    if (line.find("ERROR: AddressSanitizer") != std::string::npos ||
        line.find("ERROR: LeakSanitizer") != std::string::npos || line.find("runtime error:") != std::string::npos ||
        line.find("SUMMARY: ") != std::string::npos)
      reports += line + "\n";
  }
  return reports;
}

}  // namespace kapi::test_support
