// kapi-bench: a load generator for kapi (or any Kubernetes API server's plain-HTTP port) and its baselines.
//   kapi-bench <create|get|update|patch|apply|list|watch|mixed|static|etcd-txn|fill> [--flags]
//                                                                        run one scenario, print its figures
//   kapi-bench report --out=<file>.html [--suite=<table>.json] <run>.json...   one HTML page from saved runs
// Run with --help for the flags.
#include "bench/report/report.h"
#include "bench/scenarios/scenario.h"

#include <asio/co_spawn.hpp>
#include <asio/executor_work_guard.hpp>
#include <asio/io_context.hpp>

#include <boost/json.hpp>

#include <sched.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace kapi::bench;

constexpr const char* kUsage = R"(usage: kapi-bench <scenario> [flags]
scenarios:
  create    POST ConfigMaps of --object-bytes into --namespace; or, with --body-template=FILE, that
            object (each `{name}` in it replaced by a new name) to --collection=PATH
  get       GET random ones of --objects ConfigMaps (created first unless --no-populate);
            resourceVersion=0 (from the cache), or --consistent
  update    PUT random ones of --objects ConfigMaps (created first unless --no-populate)
  patch     JSON merge patch random ones of --objects ConfigMaps (likewise)
  apply     server-side apply (forced) of that same change to random ones of --objects ConfigMaps
  list      LIST the --objects ConfigMaps of the namespace (resourceVersion=0, or --consistent)
  watch     --watchers watch connections while a writer creates --events-per-second ConfigMaps
  mixed     --nodes kubelets renewing Leases every 10 s, --pod-changes-per-second pod creates, status
            updates and deletes, --informers listing and watching pods; figures for the writes together
  static    GET --path from --server (nginx serving the same bytes: the HTTP limit)
  etcd-txn  raw etcd Txn puts of --object-bytes values on --etcd (the write limit)
  fill      create --objects ConfigMaps as fast as --concurrency allows, then stop
flags:
  --server=http://127.0.0.1:PORT  kapi's --insecure-port (or nginx)   --etcd=http://127.0.0.1:PORT
  --kubeconfig=FILE     HTTPS with its CA and client certificate, to its server unless --server=https://...
                        (an https:// --server without it: TLS unverified, e.g. nginx for `static`)
  --http2               HTTP/2 (TLS only): a stream per request, the watchers sharing connections of 1000
  --concurrency=64      closed loop: that many requests in flight; with --rate: most in flight
  --rate=N              open loop: N requests started per second
  --honor-retry-after   closed loop: after a 429 with Retry-After, a worker waits that long (as client-go does)
  --duration=10s --warmup=2s            measured time, and time run before it but not counted
  --object-bytes=1024 --objects=1000 --namespace=kapi-bench --no-populate --consistent --path=/
  --watchers=100 --events-per-second=100 --write-server=URL   (watch: the writer's server, another on one etcd)
  --nodes=1000 --pod-changes-per-second=20 --informers=4    (mixed; --concurrency: most in flight per kind)
  --server-pid=PID      report that process's CPU seconds and memory (from /proc)
  --json=FILE           the figures as JSON         --report=FILE.html  a page with charts
  --threads=N           reactor threads for the request/response scenarios' load (default: every CPU this
                        process may run on); the watch, mixed and etcd-txn scenarios run on one
  --quiet               no figures on stdout (with --json)
)";

using Flags = std::map<std::string, std::string>;

std::chrono::milliseconds parse_duration(const std::string& text) {
  std::size_t used = 0;
  const double value = std::stod(text, &used);
  const std::string unit = text.substr(used);
  if (unit == "ms") return std::chrono::milliseconds(static_cast<long>(value));
  if (unit == "m") return std::chrono::milliseconds(static_cast<long>(value * 60'000));
  if (unit == "s" || unit.empty()) return std::chrono::milliseconds(static_cast<long>(value * 1000));
  throw std::invalid_argument("bad duration " + text + " (use 500ms, 10s or 2m)");
}

ScenarioOptions scenario_options(const std::string& scenario, Flags& flags) {
  ScenarioOptions options;
  options.scenario = scenario;
  auto take = [&flags](const std::string& name) -> std::optional<std::string> {
    auto found = flags.find(name);
    if (found == flags.end()) return std::nullopt;
    std::string value = found->second;
    flags.erase(found);
    return value;
  };
  if (auto v = take("server")) options.server = *v;
  if (auto v = take("etcd")) options.etcd = *v;
  if (auto v = take("kubeconfig")) options.kubeconfig = *v;
  if (auto v = take("namespace")) options.namespace_name = *v;
  if (auto v = take("object-bytes")) options.object_bytes = std::stoul(*v);
  if (auto v = take("objects")) options.objects = std::stoul(*v);
  if (take("no-populate")) options.populate = false;
  if (take("consistent")) options.consistent_list = true;
  if (take("http2")) options.http2 = true;
  if (auto v = take("path")) options.path = *v;
  if (auto v = take("collection")) options.collection = *v;
  if (auto v = take("body-template")) {
    std::ifstream file(*v, std::ios::binary);
    std::stringstream text;
    text << file.rdbuf();
    if (!file) throw std::invalid_argument("cannot read --body-template " + *v);
    options.body_template = text.str();
  }
  if (auto v = take("watchers")) options.watchers = std::stoul(*v);
  if (auto v = take("events-per-second")) options.events_per_second = std::stod(*v);
  if (auto v = take("write-server")) options.write_server = *v;
  if (auto v = take("nodes")) options.nodes = std::stoul(*v);
  if (auto v = take("pod-changes-per-second")) options.pod_changes_per_second = std::stod(*v);
  if (auto v = take("informers")) options.informers = std::stoul(*v);
  if (auto v = take("server-pid")) options.server_pid = static_cast<pid_t>(std::stol(*v));
  if (auto v = take("concurrency")) options.load.concurrency = std::max<std::size_t>(1, std::stoul(*v));
  if (take("honor-retry-after")) options.load.honor_retry_after = true;
  if (auto v = take("rate")) {
    options.load.mode = LoadMode::open;
    options.load.rate = std::stod(*v);
    if (options.load.rate <= 0) throw std::invalid_argument("--rate must be positive");
  }
  if (auto v = take("duration")) options.load.duration = parse_duration(*v);
  if (auto v = take("warmup")) options.load.warmup = parse_duration(*v);
  return options;
}

// Thousands of connections need thousands of descriptors: take all the hard limit allows.
void raise_descriptor_limit() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    ::setrlimit(RLIMIT_NOFILE, &limit);
  }
}

ProgressCallback progress_line(const std::string& scenario, const LoadOptions& load) {
  if (!::isatty(STDERR_FILENO)) return {};
  const double total = std::chrono::duration<double>(load.warmup + load.duration).count();
  const double warmup = std::chrono::duration<double>(load.warmup).count();
  return [scenario, total, warmup](double elapsed, const LoadResult& sofar) {
    const double measured = std::max(1e-3, elapsed - warmup);
    std::fprintf(stderr, "\r\033[K[%s] %5.1f/%.0f s %s  %8.0f ok/s  p99 %7.2f ms  failed %llu", scenario.c_str(),
                 elapsed, total, elapsed < warmup ? "warm-up" : "       ",
                 elapsed < warmup ? 0.0 : static_cast<double>(sofar.successes) / measured,
                 static_cast<double>(sofar.latency.quantile_micros(0.99)) / 1000.0,
                 static_cast<unsigned long long>(sofar.failures));
  };
}

std::size_t available_cpus() {
  cpu_set_t cpus;
  if (sched_getaffinity(0, sizeof(cpus), &cpus) == 0) return std::max(1, CPU_COUNT(&cpus));
  return std::max(1u, std::thread::hardware_concurrency());
}

double own_cpu_seconds() {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& time) { return static_cast<double>(time.tv_sec) + time.tv_usec / 1e6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file << text;
  if (!file) throw std::runtime_error("cannot write " + path);
}

boost::json::object read_run(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  std::stringstream text;
  text << file.rdbuf();
  if (!file) throw std::runtime_error("cannot read " + path);
  return boost::json::parse(text.str()).as_object();
}

// Each run is named after its file (run-suite names them after their figure: P2-get-embedded.json); --suite adds
// run-suite's table of figures against their goals, and which run is drawn beside which baseline.
int report_command(Flags& flags, const std::vector<std::string>& files) {
  if (!flags.count("out") || files.empty())
    throw std::invalid_argument("usage: kapi-bench report --out=FILE.html [--suite=TABLE.json] RUN.json...");
  std::vector<boost::json::object> runs;
  for (const auto& path : files) {
    runs.push_back(read_run(path));
    runs.back()["name"] = std::filesystem::path(path).stem().string();
  }
  std::optional<boost::json::object> suite;
  if (flags.count("suite")) suite = read_run(flags["suite"]);
  write_file(flags["out"], render_html(runs, suite ? &*suite : nullptr));
  return 0;
}

int run_command(const std::string& scenario, Flags& flags) {
  const bool quiet = flags.erase("quiet") > 0;
  std::size_t threads = available_cpus();
  if (flags.count("threads")) threads = std::max<std::size_t>(1, std::stoul(flags["threads"]));
  flags.erase("threads");
  const std::string json_file = flags.count("json") ? flags["json"] : "";
  const std::string html_file = flags.count("report") ? flags["report"] : "";
  flags.erase("json");
  flags.erase("report");
  ScenarioOptions options = scenario_options(scenario, flags);
  if (!flags.empty()) throw std::invalid_argument("unknown flag --" + flags.begin()->first);
  raise_descriptor_limit();

  // The first reactor runs the scenario on this thread; the others only the load's parts given them.
  std::vector<std::unique_ptr<asio::io_context>> reactors;
  std::vector<asio::any_io_executor> executors;
  for (std::size_t i = 0; i < threads; ++i) {
    reactors.push_back(std::make_unique<asio::io_context>(1));
    executors.push_back(reactors.back()->get_executor());
  }
  std::vector<asio::executor_work_guard<asio::io_context::executor_type>> keep_running;
  std::vector<std::thread> helpers;
  for (std::size_t i = 1; i < threads; ++i) {
    keep_running.push_back(asio::make_work_guard(*reactors[i]));
    helpers.emplace_back([&reactor = *reactors[i]] { reactor.run(); });
  }
  asio::io_context& io = *reactors.front();
  std::optional<ScenarioResult> result;
  std::exception_ptr failure;
  auto progress = progress_line(scenario, options.load);
  asio::co_spawn(io, run_scenario(io.get_executor(), options, progress, executors),
                 [&](std::exception_ptr error, ScenarioResult value) {
                   failure = error;
                   if (!error) result = std::move(value);
                 });
  const double cpu_before = own_cpu_seconds();
  io.run();
  keep_running.clear();
  for (std::thread& helper : helpers) helper.join();
  if (result) {
    result->client_cpu_seconds = own_cpu_seconds() - cpu_before;
    result->client_threads = threads;
  }
  if (progress) std::fprintf(stderr, "\r\033[K");
  if (failure) std::rethrow_exception(failure);

  auto run = to_json(*result);
  if (!quiet) print_text(stdout, run);
  if (!json_file.empty()) write_file(json_file, boost::json::serialize(run) + "\n");
  if (!html_file.empty()) {
    run["name"] = scenario;
    write_file(html_file, render_html({run}));
  }
  return result->load.successes == 0 ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  Flags flags;
  std::vector<std::string> positional;
  for (int i = 1; i < argc; ++i) {
    std::string argument = argv[i];
    if (argument == "-h" || argument == "--help") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    if (!argument.starts_with("--")) {
      positional.push_back(argument);
      continue;
    }
    auto equals = argument.find('=');
    flags[argument.substr(2, equals - 2)] = equals == std::string::npos ? "" : argument.substr(equals + 1);
  }
  try {
    if (positional.empty()) throw std::invalid_argument("no scenario given");
    if (positional[0] == "report") return report_command(flags, {positional.begin() + 1, positional.end()});
    if (positional.size() > 1) throw std::invalid_argument("one scenario at a time");
    return run_command(positional[0], flags);
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "kapi-bench: %s\n\n%s", e.what(), kUsage);
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kapi-bench: %s\n", e.what());
    return 1;
  }
}
