// kapi-cel-conformance: google/cel-spec's simple conformance tests against kapi's CEL engine (cel-go runs the same
// files in conformance/conformance_test.go). Usage:
//   kapi-cel-conformance [--data=DIR] [--filter=TEXT] [--verbose] [--record] [--no-fork] [--time-limit=SECONDS]
// DIR (default tests/data/cel-spec) holds testdata/*.textproto, not_applicable.txt and passing.txt. The exit status
// is 0 unless a test listed in passing.txt fails (1) or the data cannot be read (2); --record rewrites passing.txt
// with the tests that pass now.
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "cel/expr/conformance/test/simple.pb.h"
#include "tests/cel_conformance/applicability.h"
#include "tests/cel_conformance/report.h"
#include "tests/cel_conformance/runner.h"
#include "tests/cel_conformance/test_files.h"

namespace kapi::cel::conformance {
namespace {

namespace fs = std::filesystem;
using ::cel::expr::conformance::test::SimpleTestFile;

struct Options {
  fs::path data = "tests/data/cel-spec";
  std::string filter;
  bool verbose = false;
  bool record = false;
  bool fork = true;
  std::chrono::seconds time_limit{10};
};

Options parse_options(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    auto value_of = [&](std::string_view flag) -> std::optional<std::string> {
      if (!arg.starts_with(flag) || arg.size() <= flag.size() || arg[flag.size()] != '=') return std::nullopt;
      return std::string(arg.substr(flag.size() + 1));
    };
    if (auto v = value_of("--data")) {
      options.data = *v;
    } else if (auto f = value_of("--filter")) {
      options.filter = *f;
    } else if (auto t = value_of("--time-limit")) {
      options.time_limit = std::chrono::seconds(std::stoi(*t));
    } else if (arg == "--verbose" || arg == "-v") {
      options.verbose = true;
    } else if (arg == "--record") {
      options.record = true;
    } else if (arg == "--no-fork") {
      options.fork = false;
    } else {
      throw std::invalid_argument("unknown argument " + std::string(arg) +
                                  " (--data=DIR --filter=TEXT --verbose --record --no-fork --time-limit=SECONDS)");
    }
  }
  return options;
}

// passing.txt: one test id per line; '#' lines are comments.
std::vector<std::string> read_passing(const fs::path& path) {
  std::vector<std::string> ids;
  if (!fs::exists(path)) return ids;
  std::istringstream lines(read_text_file(path));
  std::string line;
  while (std::getline(lines, line)) {
    if (!line.empty() && line[0] != '#') ids.push_back(line);
  }
  return ids;
}

void write_passing(const fs::path& path, const std::vector<TestRecord>& records) {
  std::ofstream out(path, std::ios::trunc);
  if (!out) throw std::runtime_error("cannot write " + path.string());
  out << "# cel-spec conformance tests kapi's CEL engine passes; kapi-cel-conformance fails when one of them stops\n"
         "# passing. Rewrite with: build/tests/cel_conformance/kapi-cel-conformance --record\n";
  for (const TestRecord& record : records) {
    if (record.outcome.outcome == Outcome::kPassed) out << record.id << "\n";
  }
}

int run(const Options& options) {
  std::vector<SimpleTestFile> files = load_test_files(options.data / "testdata");
  Applicability applicability = Applicability::load(options.data / "not_applicable.txt");
  Runner runner(conformance_env());

  std::vector<TestRecord> records;
  for (const SimpleTestFile& file : files) {
    for (const auto& section : file.section()) {
      std::map<std::string, int> seen;  // cel-spec repeats a few test names within a section
      for (const auto& test : section.test()) {
        std::string id = file.name() + "/" + section.name() + "/" + test.name();
        if (int n = ++seen[test.name()]; n > 1) id += "#" + std::to_string(n);
        if (!options.filter.empty() && id.find(options.filter) == std::string::npos) continue;
        TestOutcome outcome;
        if (auto reason = applicability.not_applicable_reason(id, test)) {
          outcome = TestOutcome{Outcome::kNotApplicable, {}, *reason};
        } else {
          outcome = options.fork ? runner.run_isolated(test, options.time_limit) : runner.run(test);
        }
        records.push_back(TestRecord{id, file.name(), section.name(), test.expr(), std::move(outcome)});
      }
    }
  }
  print_report(std::cout, records, options.verbose);
  if (options.filter.empty()) {
    std::vector<std::string> ids;
    for (const TestRecord& record : records) ids.push_back(record.id);
    for (const std::string& stale : applicability.unused_exceptions(ids)) {
      std::cout << "warning: not_applicable.txt names " << stale << ", which no test file has\n";
    }
  }

  fs::path passing_file = options.data / "passing.txt";
  if (options.record) {
    if (!options.filter.empty()) throw std::runtime_error("--record records the whole run: drop --filter");
    write_passing(passing_file, records);
    std::cout << "recorded the passing tests in " << passing_file.string() << "\n";
    return 0;
  }
  std::map<std::string, Outcome> outcomes;
  for (const TestRecord& record : records) outcomes.emplace(record.id, record.outcome.outcome);
  std::vector<std::string> regressions;
  std::set<std::string> recorded;
  for (const std::string& id : read_passing(passing_file)) {
    recorded.insert(id);
    auto it = outcomes.find(id);
    if (it != outcomes.end() && it->second == Outcome::kFailed) regressions.push_back(id);
    if (it == outcomes.end() && options.filter.empty()) {
      std::cout << "warning: " << id << " is listed in passing.txt but was not run\n";
    }
  }
  int newly_passing = 0;
  for (const TestRecord& record : records) {
    if (record.outcome.outcome == Outcome::kPassed && !recorded.contains(record.id)) ++newly_passing;
  }
  if (newly_passing > 0) {
    std::cout << newly_passing << " passing tests are not in passing.txt yet (record them with --record)\n";
  }
  if (regressions.empty()) return 0;
  std::cout << "\nREGRESSIONS: " << regressions.size() << " tests listed in passing.txt fail:\n";
  for (const std::string& id : regressions) std::cout << "  " << id << "\n";
  return 1;
}

}  // namespace
}  // namespace kapi::cel::conformance

int main(int argc, char** argv) {
  GOOGLE_PROTOBUF_VERIFY_VERSION;
  try {
    return kapi::cel::conformance::run(kapi::cel::conformance::parse_options(argc, argv));
  } catch (const std::exception& e) {
    std::cerr << "kapi-cel-conformance: " << e.what() << "\n";
    return 2;
  }
}
