#include "tests/support/etcd_process.h"

#include "protos/etcd/rpc.grpc.pb.h"
#include "tests/support/command.h"
#include "tests/support/loopback.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <future>
#include <grpcpp/create_channel.h>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace kapi::test_support {
namespace {

using namespace std::chrono_literals;

class Socket {
 public:
  Socket() : fd_(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
    if (fd_ < 0) throw std::runtime_error(std::string("socket: ") + std::strerror(errno));
  }
  ~Socket() { ::close(fd_); }
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;
  int fd() const { return fd_; }

 private:
  int fd_;
};

// A port the kernel just handed out; another process may still take it before etcd binds it, so a failed
// first start is retried on fresh ports.
int free_port() {
  Socket socket;
  sockaddr_in address = loopback(0);
  if (::bind(socket.fd(), reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    throw std::runtime_error(std::string("bind: ") + std::strerror(errno));
  }
  socklen_t length = sizeof address;
  ::getsockname(socket.fd(), reinterpret_cast<sockaddr*>(&address), &length);
  return ntohs(address.sin_port);
}

// GET /health on etcd's metrics port: {"health":"true"} once the member has a leader and serves.
bool healthy(int port) {
  Socket socket;
  timeval timeout{1, 0};
  ::setsockopt(socket.fd(), SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  ::setsockopt(socket.fd(), SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
  sockaddr_in address = loopback(port);
  if (::connect(socket.fd(), reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) return false;
  const std::string request = "GET /health HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n";
  if (::send(socket.fd(), request.data(), request.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(request.size())) {
    return false;
  }
  std::string response;
  char buffer[1024];
  for (ssize_t n; (n = ::recv(socket.fd(), buffer, sizeof buffer, 0)) > 0;) response.append(buffer, std::size_t(n));
  return response.find("\"health\":\"true\"") != std::string::npos;
}

// gRPC 1.51 (as Debian builds it) serves every channel's callback API from one process-wide completion queue,
// counted by the channels that used it and torn down whenever the last of them goes away; that teardown races
// the next channel's first call and aborts the process ("ref_counted.h: assertion failed: prior > 0" in
// grpc_cq_internal_unref). Tests create and destroy etcd clients all the time, so the first etcd a test binary
// starts also pins the queue with a channel that has made one call and is only released at exit.
void pin_grpc_callback_queue() {
  static const std::shared_ptr<grpc::Channel> pinned = [] {
    auto channel = grpc::CreateChannel("127.0.0.1:1", grpc::InsecureChannelCredentials());
    auto stub = etcdserverpb::Maintenance::NewStub(channel);
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + 100ms);
    etcdserverpb::StatusRequest request;
    etcdserverpb::StatusResponse response;
    std::promise<void> done;
    stub->async()->Status(&context, &request, &response, [&done](const grpc::Status&) { done.set_value(); });
    done.get_future().wait();
    return channel;
  }();
}

}  // namespace

EtcdProcess::EtcdProcess() : EtcdProcess(Options{}) {}

EtcdProcess::EtcdProcess(Options options) : options_(std::move(options)) {
  make_work_dir();
  for (int attempt = 0;; ++attempt) {
    client_port_ = free_port();
    peer_port_ = free_port();
    metrics_port_ = free_port();
    try {
      start();
      return;
    } catch (const std::exception&) {
      if (running()) kill();
      std::filesystem::remove_all(data_dir_);
      if (attempt == 2) {
        std::filesystem::remove_all(work_dir_);
        throw;
      }
    }
  }
}

EtcdProcess::EtcdProcess(Options options, Member member)
    : options_(std::move(options)),
      name_(std::move(member.name)),
      initial_cluster_(std::move(member.initial_cluster)),
      client_port_(member.client_port),
      peer_port_(member.peer_port),
      metrics_port_(member.metrics_port) {
  make_work_dir();
  spawn();
}

void EtcdProcess::make_work_dir() {
  pin_grpc_callback_queue();
  std::string pattern = (std::filesystem::temp_directory_path() / "kapi-etcd-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error(std::string("mkdtemp: ") + std::strerror(errno));
  work_dir_ = pattern;
  data_dir_ = work_dir_ / "data";
  log_file_ = work_dir_ / "etcd.log";
}

EtcdProcess::~EtcdProcess() {
  if (running()) kill();
  std::error_code ignored;
  std::filesystem::remove_all(work_dir_, ignored);
}

std::string EtcdProcess::endpoint() const {
  return (options_.cert_file.empty() ? "http://127.0.0.1:" : "https://127.0.0.1:") + std::to_string(client_port_);
}

void EtcdProcess::start() {
  if (running()) throw std::logic_error("etcd is already running");
  spawn();
  wait_until_serving();
}

void EtcdProcess::spawn() {
  const std::string client_url = endpoint();
  const std::string peer_url = "http://127.0.0.1:" + std::to_string(peer_port_);
  std::vector<std::string> arguments = {
      options_.binary.string(),
      "--name=" + name_,
      "--data-dir=" + data_dir_.string(),
      "--listen-client-urls=" + client_url,
      "--advertise-client-urls=" + client_url,
      "--listen-peer-urls=" + peer_url,
      "--initial-advertise-peer-urls=" + peer_url,
      "--initial-cluster=" + (initial_cluster_.empty() ? name_ + "=" + peer_url : initial_cluster_),
      "--listen-metrics-urls=http://127.0.0.1:" + std::to_string(metrics_port_),
      "--logger=zap",
      "--log-outputs=stderr",
      "--log-level=warn",
  };
  if (options_.progress_notify_interval.count() > 0) {
    arguments.push_back("--experimental-watch-progress-notify-interval=" +
                        std::to_string(options_.progress_notify_interval.count()) + "ms");
  }
  if (!options_.cert_file.empty()) {
    arguments.push_back("--cert-file=" + options_.cert_file.string());
    arguments.push_back("--key-file=" + options_.key_file.string());
  }
  if (!options_.trusted_ca_file.empty()) {
    arguments.push_back("--trusted-ca-file=" + options_.trusted_ca_file.string());
    arguments.push_back("--client-cert-auth");
  }
  arguments.insert(arguments.end(), options_.extra_arguments.begin(), options_.extra_arguments.end());
  std::vector<char*> argv;
  for (auto& argument : arguments) argv.push_back(argument.data());
  argv.push_back(nullptr);

  // Everything the child needs is prepared before fork: between fork and exec only async-signal-safe calls.
  const int log = ::open(log_file_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (log < 0) throw std::runtime_error(std::string("open etcd log: ") + std::strerror(errno));
  const pid_t parent = ::getpid();
  const pid_t child = ::fork();
  if (child == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // no etcd outlives a crashed test
    if (::getppid() != parent) ::_exit(1);
    ::dup2(log, STDOUT_FILENO);
    ::dup2(log, STDERR_FILENO);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  ::close(log);
  if (child < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  pid_ = child;
}

void EtcdProcess::wait_until_serving() {
  const auto deadline = std::chrono::steady_clock::now() + options_.startup_timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      throw std::runtime_error("etcd exited during startup:\n" + log_tail());
    }
    if (healthy(metrics_port_)) return;
    std::this_thread::sleep_for(20ms);
  }
  throw std::runtime_error("etcd did not become healthy in time:\n" + log_tail());
}

void EtcdProcess::signal_and_reap(int signal) {
  if (!running()) return;
  ::kill(pid_, signal);
  ::kill(pid_, SIGCONT);  // a paused etcd acts on SIGTERM only once it runs again
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  int status = 0;
  while (::waitpid(pid_, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, &status, 0);
      break;
    }
    std::this_thread::sleep_for(5ms);
  }
  pid_ = -1;
}

void EtcdProcess::stop() { signal_and_reap(SIGTERM); }

void EtcdProcess::kill() { signal_and_reap(SIGKILL); }

void EtcdProcess::pause() {
  if (running()) ::kill(pid_, SIGSTOP);
}

void EtcdProcess::resume() {
  if (running()) ::kill(pid_, SIGCONT);
}

std::string EtcdProcess::log_tail() const {
  std::ifstream file(log_file_);
  std::string line;
  std::vector<std::string> lines;
  while (std::getline(file, line)) lines.push_back(line);
  std::ostringstream tail;
  for (std::size_t i = lines.size() > 30 ? lines.size() - 30 : 0; i < lines.size(); ++i) tail << lines[i] << '\n';
  return tail.str();
}

std::string EtcdProcess::etcdctl(const std::string& arguments) const {
  return run_command("ETCDCTL_API=3 timeout 20 etcdctl --endpoints=" + endpoint() + " " + arguments).output;
}

EtcdCluster::EtcdCluster(std::size_t members, EtcdProcess::Options options) {
  // As for one member, a port another process took before etcd bound it fails the start: it is retried on others.
  for (int attempt = 0;; ++attempt) {
    std::set<int> taken;
    auto distinct_port = [&] {
      for (;;)
        if (const int port = free_port(); taken.insert(port).second) return port;
    };
    std::vector<EtcdProcess::Member> planned(members);
    std::string initial_cluster;
    for (std::size_t i = 0; i < members; ++i) {
      planned[i] = {.name = "kapi-test-" + std::to_string(i),
                    .client_port = distinct_port(),
                    .peer_port = distinct_port(),
                    .metrics_port = distinct_port()};
      initial_cluster +=
          (i ? "," : "") + planned[i].name + "=http://127.0.0.1:" + std::to_string(planned[i].peer_port);
    }
    try {
      for (auto& member : planned) {
        member.initial_cluster = initial_cluster;
        members_.push_back(std::make_unique<EtcdProcess>(options, std::move(member)));
      }
      for (auto& member : members_) member->wait_until_serving();
      return;
    } catch (const std::exception&) {
      members_.clear();
      if (attempt == 2) throw;
    }
  }
}

std::string EtcdCluster::endpoints() const {
  std::string out;
  for (const auto& member : members_) out += (out.empty() ? "" : ",") + member->endpoint();
  return out;
}

}  // namespace kapi::test_support
