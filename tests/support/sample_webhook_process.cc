#include "tests/support/sample_webhook_process.h"

#include "base/base64.h"
#include "tests/support/child_process.h"
#include "tests/support/child_reaping.h"

#include <boost/json.hpp>

#include <signal.h>
#include <stdlib.h>
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

constexpr std::string_view kWebhookServingLine = "sample-webhook serving on https://";

}  // namespace

SampleWebhookProcess::SampleWebhookProcess(std::string server_name, std::string bind_address,
                                           std::filesystem::path binary) {
  if (binary.empty()) binary = binary_from_environment("KAPI_SAMPLE_WEBHOOK");
  std::string pattern = (std::filesystem::temp_directory_path() / "kapi-sample-webhook-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error(std::string("mkdtemp: ") + std::strerror(errno));
  work_dir_ = pattern;
  std::vector<std::string> owned = {binary.string(), "--secure-port=0", "--cert-dir=" + (work_dir_ / "certs").string(),
                                    "--server-name=" + server_name, "--bind-address=" + bind_address,
                                    "--request-log=" + (work_dir_ / "requests.log").string()};
  const std::filesystem::path out_path = work_dir_ / "stdout";
  pid_ = spawn_child(std::move(owned), out_path, work_dir_ / "stderr", "kapi-sample-webhook");
  const auto deadline = Clock::now() + 10s;
  while (Clock::now() < deadline) {
    if (int port = serving_port(read_file(out_path), kWebhookServingLine); port != 0) {
      port_ = port;
      return;
    }
    if (reap_within(pid_, 0ms)) {
      pid_ = -1;
      break;
    }
    std::this_thread::sleep_for(20ms);
  }
  const std::string output = logs();
  throw std::runtime_error("kapi-sample-webhook did not start listening\n" + output);
}

SampleWebhookProcess::~SampleWebhookProcess() {
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    reap(pid_);
  }
  std::error_code ignored;
  std::filesystem::remove_all(work_dir_, ignored);
}

std::string SampleWebhookProcess::url(std::string_view path) const {
  return "https://127.0.0.1:" + std::to_string(port_) + std::string(path);
}

std::string SampleWebhookProcess::ca_bundle_base64() const {
  return base::base64_encode(read_file(work_dir_ / "certs" / "ca.crt"));
}

std::vector<boost::json::object> SampleWebhookProcess::requests() const {
  std::vector<boost::json::object> out;
  std::istringstream lines(read_file(work_dir_ / "requests.log"));
  for (std::string line; std::getline(lines, line);) {
    if (line.empty()) continue;
    boost::json::value value = boost::json::parse(line);
    if (value.is_object()) out.push_back(std::move(value.as_object()));
  }
  return out;
}

std::vector<boost::json::object> SampleWebhookProcess::requests_for(std::string_view path) const {
  std::vector<boost::json::object> out;
  for (auto& request : requests())
    if (request["path"].is_string() && request["path"].as_string() == path) out.push_back(std::move(request));
  return out;
}

std::string SampleWebhookProcess::logs() const {
  return "----- kapi-sample-webhook stdout -----\n" + read_file(work_dir_ / "stdout") +
         "----- kapi-sample-webhook stderr -----\n" + read_file(work_dir_ / "stderr");
}

}  // namespace kapi::test_support
