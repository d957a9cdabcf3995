// kill -9 at any moment loses no acknowledged write: a child process (kapi-embedded-writer) writes under load
// and reports each acknowledged key; it is SIGKILLed at random moments and restarted on the same data dir, and
// every key it reported must be there afterwards.
#include "storage/embedded/store.h"
#include "tests/support/io_thread.h"
#include "tests/support/temp_dir.h"
#include "tests/unit/storage/embedded_writer_path.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <iostream>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace kapi::storage::embedded::embedded_durability_test {
namespace {

using namespace std::chrono_literals;

struct WriterRun {
  std::vector<std::string> acknowledged;
  std::string unfinished_line;

  void consume(const char* data, std::size_t size) {
    for (std::size_t i = 0; i < size; ++i) {
      if (data[i] == '\n') {
        acknowledged.push_back(std::move(unfinished_line));
        unfinished_line.clear();
      } else {
        unfinished_line += data[i];
      }
    }
  }
};

// Starts the writer, lets it write for `load` after its first acknowledgement, SIGKILLs it, and returns every key
// it acknowledged (including lines still in the pipe when it died).
WriterRun run_and_kill(const std::filesystem::path& data_dir, int run_id, std::chrono::milliseconds load) {
  // Built before fork(): the child of a threaded process may only make async-signal-safe calls.
  const std::string dir = data_dir.string();
  const std::string id = std::to_string(run_id);
  int out[2];
  if (::pipe2(out, O_CLOEXEC) != 0) throw std::runtime_error("pipe2 failed");
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    ::dup2(out[1], STDOUT_FILENO);
    ::execl(KAPI_EMBEDDED_WRITER_PATH, KAPI_EMBEDDED_WRITER_PATH, dir.c_str(), id.c_str(), nullptr);
    ::_exit(127);
  }
  ::close(out[1]);

  WriterRun run;
  char buffer[4096];
  const auto give_up = std::chrono::steady_clock::now() + 10s;  // no acknowledgement at all: fail, don't hang
  std::optional<std::chrono::steady_clock::time_point> kill_at;
  for (;;) {
    const auto now = std::chrono::steady_clock::now();
    if (!kill_at && !run.acknowledged.empty()) kill_at = now + load;
    const auto until = kill_at.value_or(give_up);
    if (now >= until) break;
    pollfd ready{out[0], POLLIN, 0};
    const int timeout = int(std::chrono::duration_cast<std::chrono::milliseconds>(until - now).count()) + 1;
    if (::poll(&ready, 1, timeout) <= 0) continue;
    const ssize_t n = ::read(out[0], buffer, sizeof buffer);
    if (n <= 0) break;  // the writer died on its own
    run.consume(buffer, std::size_t(n));
  }
  ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  // Lines the writer managed to print before it died were acknowledged too.
  for (ssize_t n; (n = ::read(out[0], buffer, sizeof buffer)) > 0;) run.consume(buffer, std::size_t(n));
  ::close(out[0]);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "the writer exited by itself: " << status;
  return run;
}

TEST(EmbeddedDurability, AcknowledgedWritesSurviveSigkill) {
  ASSERT_TRUE(std::filesystem::exists(KAPI_EMBEDDED_WRITER_PATH)) << "build kapi-embedded-writer first";
  test_support::TempDir dir("kapi-durability");
  const std::filesystem::path data_dir = dir.path() / "data";
  const auto seed = std::random_device{}();
  std::mt19937 random(seed);
  std::uniform_int_distribution<int> load_ms(50, 600);
  SCOPED_TRACE("random seed " + std::to_string(seed));

  constexpr int kRuns = 5;
  std::vector<std::string> acknowledged;
  for (int run_id = 0; run_id < kRuns; ++run_id) {
    WriterRun run = run_and_kill(data_dir, run_id, std::chrono::milliseconds(load_ms(random)));
    EXPECT_FALSE(run.acknowledged.empty()) << "run " << run_id << " acknowledged nothing";
    acknowledged.insert(acknowledged.end(), run.acknowledged.begin(), run.acknowledged.end());
  }

  Options options;
  options.data_dir = data_dir;
  auto store = Store::open(options);
  test_support::IoThread io;
  std::size_t missing = 0;
  for (const std::string& key : acknowledged) {
    GetOptions get;
    get.ignore_not_found = true;
    if (!io.run(store->get(key, get))) {
      if (++missing <= 10) {
        ADD_FAILURE() << "acknowledged but lost: " << key;
      }
    }
  }
  EXPECT_EQ(missing, 0u) << "of " << acknowledged.size() << " acknowledged writes";
  // The store is consistent afterwards: every key it holds is readable in one list, at one revision.
  const ListResult all = io.run(store->list("/durability", {}));
  EXPECT_GE(all.items.size(), acknowledged.size());
  std::cout << "[ durability ] " << acknowledged.size() << " acknowledged writes in " << kRuns
            << " killed runs, all present\n";
}

}  // namespace
}  // namespace kapi::storage::embedded::embedded_durability_test
