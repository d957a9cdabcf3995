#pragma once
// A real etcd (Debian's etcd-server, /usr/bin/etcd) for tests: a single-member cluster on free loopback ports
// with its own temporary data dir, or (EtcdCluster) the members of one cluster. Each can be stopped, SIGKILLed and
// started again on the same ports and data, so fault tests can take etcd, or one member, away under a running
// client. The processes die with the test process.
#include <chrono>
#include <cstddef>
#include <filesystem>
#include <memory>
#include <string>
#include <sys/types.h>
#include <vector>

namespace kapi::test_support {

class EtcdProcess {
 public:
  struct Options {
    std::filesystem::path binary = "/usr/bin/etcd";
    // etcd's --experimental-watch-progress-notify-interval; zero keeps etcd's default (10 min).
    std::chrono::milliseconds progress_notify_interval{0};
    std::chrono::milliseconds startup_timeout{std::chrono::seconds(15)};
    std::vector<std::string> extra_arguments;
    // PEM files: when set, clients must speak TLS (and, with a CA, present a certificate it signed).
    std::filesystem::path cert_file;
    std::filesystem::path key_file;
    std::filesystem::path trusted_ca_file;
  };

  // A member of a cluster that starts together: its ports chosen beforehand and every member's peer URL
  // ("m0=http://127.0.0.1:p0,m1=..."). Its constructor does not wait: a member serves once a majority runs.
  struct Member {
    std::string name;
    std::string initial_cluster;
    int client_port = 0;
    int peer_port = 0;
    int metrics_port = 0;
  };

  // Starts etcd and waits until it serves (throws std::runtime_error with etcd's log on failure).
  EtcdProcess();
  explicit EtcdProcess(Options options);
  EtcdProcess(Options options, Member member);
  // Kills etcd and removes its data.
  ~EtcdProcess();
  EtcdProcess(const EtcdProcess&) = delete;
  EtcdProcess& operator=(const EtcdProcess&) = delete;

  // "http://127.0.0.1:<port>" (https with TLS), for a client's endpoint list.
  std::string endpoint() const;
  int client_port() const { return client_port_; }
  const std::filesystem::path& data_dir() const { return data_dir_; }
  bool running() const { return pid_ > 0; }

  // SIGTERM, then wait for the exit (etcd shuts down cleanly).
  void stop();
  // SIGKILL, then reap: an abrupt crash, the data dir left as it was.
  void kill();
  // SIGSTOP / SIGCONT: etcd hangs with its connections open (no reset, no answer), as a stalled disk or a
  // frozen VM makes it; stop() and kill() work on a paused etcd too.
  void pause();
  void resume();
  // Starts again on the same ports and data dir and waits until it serves.
  void start();
  // Waits until this member has a leader and serves (throws std::runtime_error with etcd's log on failure).
  void wait_until_serving();
  // What `etcdctl <arguments>` (v3 API, this etcd's endpoint, 20 s at most) prints, stderr included.
  std::string etcdctl(const std::string& arguments) const;
  // The last lines of etcd's log, for failure messages.
  std::string log_tail() const;

 private:
  void make_work_dir();
  void spawn();
  void signal_and_reap(int signal);

  Options options_;
  std::string name_ = "kapi-test";
  std::string initial_cluster_;  // empty: this member alone
  std::filesystem::path work_dir_;
  std::filesystem::path data_dir_;
  std::filesystem::path log_file_;
  int client_port_ = 0;
  int peer_port_ = 0;
  int metrics_port_ = 0;  // plain-HTTP /health, whatever the client port speaks
  pid_t pid_ = -1;
};

// A cluster of etcd members on loopback, started together; the constructor returns once every member serves.
class EtcdCluster {
 public:
  explicit EtcdCluster(std::size_t members = 3, EtcdProcess::Options options = {});

  std::size_t size() const { return members_.size(); }
  EtcdProcess& member(std::size_t index) { return *members_.at(index); }
  // Every member's endpoint, comma separated, for --etcd-servers.
  std::string endpoints() const;

 private:
  std::vector<std::unique_ptr<EtcdProcess>> members_;
};

}  // namespace kapi::test_support
