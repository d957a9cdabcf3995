#include "bench/load/server_stats.h"

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/steady_timer.hpp>
#include <asio/use_awaitable.hpp>

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>

namespace kapi::bench {

std::optional<ProcessSnapshot> read_process(pid_t pid) {
  if (pid == 0) return std::nullopt;
  const std::string dir = "/proc/" + std::to_string(pid);
  std::ifstream stat_file(dir + "/stat");
  std::string stat;
  if (!std::getline(stat_file, stat)) return std::nullopt;
  // The command name (field 2) may hold spaces; the fields after its closing parenthesis do not.
  auto close = stat.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::istringstream fields(stat.substr(close + 2));
  std::string field;
  ProcessSnapshot snapshot;
  double utime = 0, stime = 0;
  for (int index = 3; fields >> field; ++index) {  // field 3 is the state; utime is 14, stime 15
    if (index == 14) utime = std::stod(field);
    if (index == 15) {
      stime = std::stod(field);
      break;
    }
  }
  snapshot.cpu_seconds = (utime + stime) / static_cast<double>(::sysconf(_SC_CLK_TCK));
  std::ifstream status_file(dir + "/status");
  for (std::string line; std::getline(status_file, line);) {
    auto kib = [&line] { return std::stoull(line.substr(line.find(':') + 1)) * 1024; };
    if (line.starts_with("VmRSS:")) snapshot.rss_bytes = kib();
    if (line.starts_with("VmHWM:")) snapshot.peak_rss_bytes = kib();
  }
  return snapshot;
}

struct ServerSampler::State {
  bool running = false;
  ProcessSnapshot first;
  ProcessSnapshot last;
  std::uint64_t peak = 0;
};

namespace {

asio::awaitable<void> sample_loop(std::shared_ptr<ServerSampler::State> state, asio::any_io_executor executor,
                                  pid_t pid) {
  asio::steady_timer timer(executor);
  while (state->running) {
    if (auto snapshot = read_process(pid)) {
      state->peak = std::max(state->peak, snapshot->rss_bytes);
      state->last = *snapshot;
    }
    timer.expires_after(std::chrono::milliseconds(50));
    co_await timer.async_wait(asio::use_awaitable);
  }
}

}  // namespace

ServerSampler::ServerSampler(asio::any_io_executor executor, pid_t pid)
    : executor_(std::move(executor)), pid_(pid), state_(std::make_shared<State>()) {}

ServerSampler::~ServerSampler() { state_->running = false; }

void ServerSampler::start() {
  if (pid_ == 0) return;
  state_->running = true;
  state_->first = read_process(pid_).value_or(ProcessSnapshot{});
  state_->last = state_->first;
  state_->peak = state_->first.rss_bytes;
  asio::co_spawn(executor_, sample_loop(state_, executor_, pid_), asio::detached);
}

ServerUsage ServerSampler::stop() {
  ServerUsage usage;
  if (pid_ == 0) return usage;
  state_->running = false;
  if (auto snapshot = read_process(pid_)) {
    state_->last = *snapshot;
    state_->peak = std::max(state_->peak, snapshot->rss_bytes);
  }
  usage.cpu_seconds = state_->last.cpu_seconds - state_->first.cpu_seconds;
  usage.rss_before_bytes = state_->first.rss_bytes;
  usage.rss_after_bytes = state_->last.rss_bytes;
  usage.rss_peak_bytes = state_->peak;
  return usage;
}

}  // namespace kapi::bench
