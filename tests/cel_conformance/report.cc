// Formatting of kapi-cel-conformance's report (cel-go's runner prints Go test output; this is kapi's own).
#include "tests/cel_conformance/report.h"

#include <re2/re2.h>

#include <algorithm>
#include <cstdio>
#include <map>

namespace kapi::cel::conformance {
namespace {

struct Counts {
  int passed = 0;
  int failed = 0;
  int not_applicable = 0;

  void add(Outcome outcome) {
    switch (outcome) {
      case Outcome::kPassed: ++passed; break;
      case Outcome::kFailed: ++failed; break;
      case Outcome::kNotApplicable: ++not_applicable; break;
    }
  }
  int applicable() const { return passed + failed; }
};

std::string row(const std::string& label, const Counts& counts) {
  char line[160];
  std::snprintf(line, sizeof line, "%-44s %7d %7d %7d", label.c_str(), counts.passed, counts.failed,
                counts.not_applicable);
  return line;
}

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

std::string shorten(std::string text, std::size_t limit) {
  if (text.size() > limit) text = text.substr(0, limit) + "...";
  return text;
}

struct Group {
  int count = 0;
  std::string example;  // the first test in it
};

// Groups sorted by size, largest first; ties in first-seen order.
void print_groups(std::ostream& out, const std::vector<std::pair<std::string, Group>>& groups, std::size_t limit) {
  std::vector<std::pair<std::string, Group>> sorted = groups;
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto& a, const auto& b) { return a.second.count > b.second.count; });
  for (std::size_t i = 0; i < sorted.size() && i < limit; ++i) {
    char count[16];
    std::snprintf(count, sizeof count, "%5d  ", sorted[i].second.count);
    out << count << sorted[i].first << "\n         e.g. " << sorted[i].second.example << "\n";
  }
  if (sorted.size() > limit) out << "  ... and " << sorted.size() - limit << " smaller groups (--verbose lists all failures)\n";
}

void add_to_group(std::vector<std::pair<std::string, Group>>& groups, const std::string& key,
                  const std::string& example) {
  auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == key; });
  if (it == groups.end()) {
    groups.emplace_back(key, Group{1, example});
  } else {
    ++it->second.count;
  }
}

}  // namespace

std::string failure_cause(const TestOutcome& outcome) {
  static const RE2 location(R"(^ERROR: [^:]*:\d+:\d+: )");
  static const RE2 quoted(R"('[^']*'|"[^"]*"|`[^`]*`)");
  static const RE2 number(R"(\b\d+(\.\d+)?u?\b)");
  std::string message = first_line(outcome.detail);
  RE2::Replace(&message, location, "");
  RE2::GlobalReplace(&message, quoted, "'…'");
  RE2::GlobalReplace(&message, number, "N");
  return outcome.stage + ": " + shorten(message, 110);
}

void print_report(std::ostream& out, const std::vector<TestRecord>& records, bool verbose) {
  Counts total;
  std::map<std::string, Counts> by_file;
  std::vector<std::string> file_order;
  std::vector<std::pair<std::string, std::vector<std::pair<std::string, Counts>>>> sections;  // per file, in order
  std::vector<std::pair<std::string, Group>> failures;
  std::vector<std::pair<std::string, Group>> not_applicable;
  std::vector<std::pair<std::string, Group>> other_messages;  // passing error tests, by message pair

  for (const TestRecord& record : records) {
    total.add(record.outcome.outcome);
    if (!by_file.contains(record.file)) {
      file_order.push_back(record.file);
      sections.emplace_back(record.file, std::vector<std::pair<std::string, Counts>>{});
    }
    by_file[record.file].add(record.outcome.outcome);
    auto& file_sections = sections.back().second;
    if (file_sections.empty() || file_sections.back().first != record.section) {
      file_sections.emplace_back(record.section, Counts{});
    }
    file_sections.back().second.add(record.outcome.outcome);
    std::string example = record.id + ": " + shorten(record.expr, 80) + "  ->  " +
                          shorten(first_line(record.outcome.detail), 120);
    if (record.outcome.outcome == Outcome::kFailed) add_to_group(failures, failure_cause(record.outcome), example);
    if (record.outcome.outcome == Outcome::kPassed && !record.outcome.detail.empty()) {
      add_to_group(other_messages, record.outcome.detail, record.id + ": " + shorten(record.expr, 80));
    }
    if (record.outcome.outcome == Outcome::kNotApplicable) {
      add_to_group(not_applicable, record.outcome.detail, record.id);
    }
  }

  char header[160];
  std::snprintf(header, sizeof header, "%-44s %7s %7s %7s\n", "file / section", "passed", "failed", "n/a");
  out << header;
  for (const auto& [file, file_sections] : sections) {
    out << row(file, by_file[file]) << "\n";
    for (const auto& [section, counts] : file_sections) out << row("  " + section, counts) << "\n";
  }
  out << row("all", total) << "\n";

  if (!failures.empty()) {
    out << "\nfailure causes, commonest first (stage: message):\n";
    print_groups(out, failures, verbose ? failures.size() : 25);
  }
  if (!not_applicable.empty()) {
    out << "\nnot applicable, by reason:\n";
    print_groups(out, not_applicable, verbose ? not_applicable.size() : 15);
  }
  if (!other_messages.empty()) {
    int count = 0;
    for (const auto& [pair, group] : other_messages) count += group.count;
    out << "\n" << count << " passing error tests give another message than cel-spec's (its runner and cel-go's "
        << "compare none)" << (verbose ? ":\n" : "; --verbose lists them\n");
    if (verbose) print_groups(out, other_messages, other_messages.size());
  }
  if (verbose) {
    out << "\nfailures:\n";
    for (const TestRecord& record : records) {
      if (record.outcome.outcome != Outcome::kFailed) continue;
      out << "FAIL " << record.id << "\n  expr:  " << record.expr << "\n  " << record.outcome.stage << ": "
          << record.outcome.detail << "\n";
    }
  }

  out << "\nper file (pass rate over applicable tests):\n";
  for (const std::string& file : file_order) {
    const Counts& counts = by_file[file];
    char line[160];
    double rate = counts.applicable() ? 100.0 * counts.passed / counts.applicable() : 0.0;
    std::snprintf(line, sizeof line, "  %-20s %4d / %4d  %5.1f %%   (%d n/a)\n", file.c_str(), counts.passed,
                  counts.applicable(), rate, counts.not_applicable);
    out << line;
  }
  char summary[200];
  double rate = total.applicable() ? 100.0 * total.passed / total.applicable() : 0.0;
  std::snprintf(summary, sizeof summary,
                "\ncel-spec conformance: %d of %d applicable tests pass (%.1f %%); %d fail; %d not applicable\n",
                total.passed, total.applicable(), rate, total.failed, total.not_applicable);
  out << summary;
}

}  // namespace kapi::cel::conformance
