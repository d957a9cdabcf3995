#pragma once
// Runs one cel-spec simple test through kapi's engine as cel-go's conformance runner does
// (conformance/conformance_test.go): parse, check unless disable_check (with the test's type_env declared), plan,
// evaluate with the bindings, and match the result. Each test may run in a child process so that a crash or a hang
// in the engine is one failed test, not a lost run.
#include <chrono>
#include <string>

#include "cel/env.h"
#include "cel/expr/conformance/test/simple.pb.h"

namespace kapi::cel::conformance {

enum class Outcome { kPassed, kFailed, kNotApplicable };

struct TestOutcome {
  Outcome outcome = Outcome::kPassed;
  std::string stage;   // for failures: parse, check, type, plan, eval, result, runner, crash, timeout
  // Failures: what differed. Not applicable: why. Passed: a note, or empty (an error test whose message differs
  // from cel-spec's, which cel-go's runner does not compare either).
  std::string detail;
};

// The environment the tests compile against: kube's (cel/ext/kube_env.h), less the literal checks cel-go's
// conformance environment lacks.
Env conformance_env();

class Runner {
 public:
  explicit Runner(Env base_env) : base_env_(std::move(base_env)) {}

  TestOutcome run(const ::cel::expr::conformance::test::SimpleTest& test) const;
  // run() in a forked child that is killed after time_limit.
  TestOutcome run_isolated(const ::cel::expr::conformance::test::SimpleTest& test,
                           std::chrono::seconds time_limit) const;

 private:
  Env base_env_;
};

}  // namespace kapi::cel::conformance
