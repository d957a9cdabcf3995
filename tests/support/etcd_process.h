#pragma once
// A real etcd (Debian's etcd-server, /usr/bin/etcd) for tests: a single-member cluster on free loopback ports
// with its own temporary data dir. It can be stopped, SIGKILLed and started again on the same ports and data, so
// fault tests can take etcd away under a running client. The process dies with the test process.
#include <chrono>
#include <filesystem>
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

  // Starts etcd and waits until it serves (throws std::runtime_error with etcd's log on failure).
  EtcdProcess();
  explicit EtcdProcess(Options options);
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
  // Starts again on the same ports and data dir and waits until it serves.
  void start();
  // What `etcdctl <arguments>` (v3 API, this etcd's endpoint, 20 s at most) prints, stderr included.
  std::string etcdctl(const std::string& arguments) const;
  // The last lines of etcd's log, for failure messages.
  std::string log_tail() const;

 private:
  void spawn();
  void wait_until_serving();
  void signal_and_reap(int signal);

  Options options_;
  std::filesystem::path work_dir_;
  std::filesystem::path data_dir_;
  std::filesystem::path log_file_;
  int client_port_ = 0;
  int peer_port_ = 0;
  int metrics_port_ = 0;  // plain-HTTP /health, whatever the client port speaks
  pid_t pid_ = -1;
};

}  // namespace kapi::test_support
