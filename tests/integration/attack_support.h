#pragma once
// What the attack tests watch while an attack goes on: kapi's memory, and whether other clients are still served.
#include "tests/integration/kapi_suite.h"

#include <algorithm>
#include <atomic>
#include <fstream>
#include <string>
#include <thread>

namespace kapi::integration {

// kapi's resident memory, in KiB.
inline long resident_kib(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(status, line);)
    if (line.starts_with("VmRSS:")) return std::stol(line.substr(6));
  return -1;
}

// Whether the process runs with AddressSanitizer, whose quarantine keeps freed memory resident (256 MiB): its RSS
// then says nothing about what kapi holds.
inline bool address_sanitized(pid_t pid) {
  std::ifstream maps("/proc/" + std::to_string(pid) + "/maps");
  for (std::string line; std::getline(maps, line);)
    if (line.find("libasan") != std::string::npos) return true;
  return false;
}

// Another client, on HTTP/1.1, reading every 20 ms while an attack goes on: how slow its slowest answer was and
// whether any failed.
class ServedMeanwhile {
 public:
  explicit ServedMeanwhile(const KapiProcess& kapi)
      : thread_([this, &kapi] {
          while (!stop_) {
            const auto start = std::chrono::steady_clock::now();
            try {
              if (kapi.connect_admin().request("GET", "/api/v1/namespaces/default").status != 200) ++failures_;
            } catch (const std::exception&) {
              ++failures_;
            }
            slowest_ = std::max(slowest_.load(), seconds_since(start));
            ++answers_;
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
          }
        }) {}
  ~ServedMeanwhile() { stop(); }
  void stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }
  double slowest() const { return slowest_; }
  int failures() const { return failures_; }
  int answers() const { return answers_; }

 private:
  std::atomic<bool> stop_{false};
  std::atomic<double> slowest_{0};
  std::atomic<int> failures_{0};
  std::atomic<int> answers_{0};
  std::thread thread_;
};

}  // namespace kapi::integration
