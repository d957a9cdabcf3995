#pragma once
// The conformance run's report: counts per file and section, the pass rate over applicable tests, failures grouped
// by cause (so the commonest engine gaps show first), reasons tests do not apply, and, verbosely, every failure.
#include <ostream>
#include <string>
#include <vector>

#include "tests/cel_conformance/runner.h"

namespace kapi::cel::conformance {

struct TestRecord {
  std::string id;  // file/section/test, as cel-go names its subtests ("#2" marks a repeated name)
  std::string file;
  std::string section;
  std::string expr;
  TestOutcome outcome;
};

void print_report(std::ostream& out, const std::vector<TestRecord>& records, bool verbose);

// The cause a failure is grouped under: its stage and message with the specifics (quoted names, numbers,
// positions) blanked, so "no matching overload for '_+_' applied to '(int, uint)'" groups with its siblings.
std::string failure_cause(const TestOutcome& outcome);

}  // namespace kapi::cel::conformance
