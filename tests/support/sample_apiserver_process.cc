#include "tests/support/sample_apiserver_process.h"

#include "base/base64.h"
#include "tests/support/child_process.h"
#include "tests/support/child_reaping.h"

#include <boost/json.hpp>

#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

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

constexpr std::string_view kSampleApiserverServingLine = "sample-apiserver serving on https://";

std::string join(const std::vector<std::string>& values) {
  std::string out;
  for (const auto& value : values) out += (out.empty() ? "" : ",") + value;
  return out;
}

}  // namespace

SampleApiServerProcess::SampleApiServerProcess(SampleApiServerOptions options) : options_(std::move(options)) {
  if (options_.binary.empty()) options_.binary = binary_from_environment("KAPI_SAMPLE_APISERVER");
  std::string pattern = (std::filesystem::temp_directory_path() / "kapi-sample-apiserver-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error(std::string("mkdtemp: ") + std::strerror(errno));
  work_dir_ = pattern;
  spawn(0);
  if (wait_until_listening(options_.startup_timeout)) return;
  const std::string output = logs();
  kill();
  std::error_code ignored;
  std::filesystem::remove_all(work_dir_, ignored);
  throw std::runtime_error("kapi-sample-apiserver did not start listening\n" + output);
}

SampleApiServerProcess::~SampleApiServerProcess() {
  kill();
  std::error_code ignored;
  std::filesystem::remove_all(work_dir_, ignored);
}

void SampleApiServerProcess::spawn(int port) {
  std::vector<std::string> owned = {
      options_.binary.string(),
      "--secure-port=" + std::to_string(port),
      "--bind-address=127.0.0.1",
      "--cert-dir=" + cert_dir().string(),
      "--server-name=" + options_.server_name,
      "--request-log=" + request_log_file().string(),
  };
  if (!options_.requestheader_client_ca_file.empty()) {
    owned.push_back("--requestheader-client-ca-file=" + options_.requestheader_client_ca_file.string());
    owned.push_back("--requestheader-allowed-names=" + join(options_.requestheader_allowed_names));
  }
  if (options_.redirect_resources) owned.push_back("--redirect-resources");
  owned.insert(owned.end(), options_.extra_flags.begin(), options_.extra_flags.end());
  // stderr accumulates over restarts.
  pid_ = spawn_child(std::move(owned), work_dir_ / "stdout", work_dir_ / "stderr", "kapi-sample-apiserver");
  exit_code_.reset();
}

bool SampleApiServerProcess::wait_until_listening(std::chrono::milliseconds bound) {
  const auto deadline = Clock::now() + bound;
  while (Clock::now() < deadline) {
    if (int port = serving_port(stdout_text(), kSampleApiserverServingLine); port != 0) {
      port_ = port;
      return true;
    }
    if (wait_for_exit(0ms)) return false;
    std::this_thread::sleep_for(20ms);
  }
  return false;
}

void SampleApiServerProcess::restart() {
  if (running()) stop();
  // The same port: an APIService's Service (and kapi's cached endpoint) keeps pointing at it. The listener sets
  // SO_REUSEADDR, so the old connections' TIME_WAIT does not block the bind; a failed bind is retried briefly.
  const auto deadline = Clock::now() + options_.startup_timeout;
  const int port = port_;
  for (;;) {
    spawn(port);
    if (wait_until_listening(options_.startup_timeout) && port_ == port) return;
    const std::string output = logs();
    kill();
    if (Clock::now() >= deadline)
      throw std::runtime_error("kapi-sample-apiserver did not restart on port " + std::to_string(port) + "\n" + output);
    std::this_thread::sleep_for(100ms);
  }
}

void SampleApiServerProcess::stop() {
  if (!running()) return;
  ::kill(pid_, SIGTERM);
  if (!wait_for_exit(5s)) kill();
}

void SampleApiServerProcess::kill() {
  if (!running()) return;
  ::kill(pid_, SIGKILL);
  exit_code_ = reap(pid_);
  pid_ = -1;
}

std::optional<int> SampleApiServerProcess::wait_for_exit(std::chrono::milliseconds bound) {
  if (!running()) return exit_code_;
  std::optional<int> code = reap_within(pid_, bound);
  if (!code) return std::nullopt;
  exit_code_ = code;
  pid_ = -1;
  return exit_code_;
}

std::string SampleApiServerProcess::ca_bundle_pem() const { return read_file(ca_cert()); }

std::string SampleApiServerProcess::ca_bundle_base64() const {
  return base::base64_encode(ca_bundle_pem());
}

std::vector<boost::json::object> SampleApiServerProcess::requests() const {
  std::vector<boost::json::object> out;
  std::istringstream lines(read_file(request_log_file()));
  for (std::string line; std::getline(lines, line);) {
    if (line.empty()) continue;
    boost::json::value value = boost::json::parse(line);
    if (value.is_object()) out.push_back(std::move(value.as_object()));
  }
  return out;
}

std::vector<boost::json::object> SampleApiServerProcess::requests_for(std::string_view path) const {
  std::vector<boost::json::object> out;
  for (auto& request : requests())
    if (request["path"].is_string() && request["path"].as_string() == path) out.push_back(std::move(request));
  return out;
}

TlsClientOptions SampleApiServerProcess::tls(const std::filesystem::path& cert_file,
                                             const std::filesystem::path& key_file) const {
  TlsClientOptions options;
  options.ca_file = ca_cert();
  options.cert_file = cert_file;
  options.key_file = key_file;
  options.server_name = options_.server_name;
  return options;
}

std::string SampleApiServerProcess::stdout_text() const { return read_file(work_dir_ / "stdout"); }

std::string SampleApiServerProcess::stderr_text() const { return read_file(work_dir_ / "stderr"); }

std::string SampleApiServerProcess::logs() const {
  return "----- kapi-sample-apiserver stdout -----\n" + stdout_text() + "----- kapi-sample-apiserver stderr -----\n" +
         stderr_text() + "----------------------------------------\n";
}

}  // namespace kapi::test_support
