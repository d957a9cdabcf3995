// One conformance test end to end, as cel-go's conformance_test.go runs it; fork isolation is kapi's own addition.
#include "tests/cel_conformance/runner.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <optional>

#include "cel/compile.h"
#include "cel/ext/kube_env.h"
#include "cel/program.h"
#include "tests/cel_conformance/decls.h"
#include "tests/cel_conformance/values.h"

namespace kapi::cel::conformance {
namespace {

using ::cel::expr::conformance::test::SimpleTest;

TestOutcome failed(std::string stage, std::string detail) {
  return TestOutcome{Outcome::kFailed, std::move(stage), std::move(detail)};
}

std::string error_message(const Value& value) { return value.get<Error>().message; }

// "cel-spec: 'want' / kapi: 'got'" when the error message is none of those the test names, else empty.
std::string message_note(const SimpleTest& test, const std::string& got) {
  std::vector<std::string> wanted;
  auto add = [&](const ::cel::expr::ErrorSet& set) {
    for (const auto& status : set.errors()) wanted.push_back(status.message());
  };
  if (test.has_eval_error()) add(test.eval_error());
  for (const auto& set : test.any_eval_errors().errors()) add(set);
  if (wanted.empty() || std::find(wanted.begin(), wanted.end(), got) != wanted.end()) return {};
  std::string note = "cel-spec: ";
  for (std::size_t i = 0; i < wanted.size(); ++i) note += (i ? " | '" : "'") + wanted[i] + "'";
  return note + " / kapi: '" + got + "'";
}

// The result against the test's matcher; a test without one expects `true`.
TestOutcome match(const SimpleTest& test, const Value& result) {
  switch (test.result_matcher_case()) {
    case SimpleTest::kEvalError:
    case SimpleTest::kAnyEvalErrors:
      // cel-go's runner asks only for an error, not for its message (plumbing expects "foo" from 1 / 0); a
      // message other than cel-spec's is noted for the report, not failed.
      if (result.is_error()) return TestOutcome{Outcome::kPassed, {}, message_note(test, error_message(result))};
      return failed("result", "want an error, got " + debug_string(result));
    case SimpleTest::kValue:
    case SimpleTest::kTypedResult:
    case SimpleTest::RESULT_MATCHER_NOT_SET: {
      if (test.has_typed_result() && !test.typed_result().has_result()) return {};
      if (result.is_error()) return failed("eval", error_message(result));
      ::cel::expr::Value want;
      if (test.has_value()) {
        want = test.value();
      } else if (test.has_typed_result()) {
        want = test.typed_result().result();
      } else {
        want.set_bool_value(true);
      }
      if (auto difference = mismatch(want, result)) return failed("result", *difference);
      return {};
    }
    default:
      return failed("runner", "unsupported result matcher");
  }
}

// What a child writes back: the outcome's number, the stage, a NUL, the detail.
std::string encode(const TestOutcome& outcome) {
  return std::to_string(static_cast<int>(outcome.outcome)) + outcome.stage + '\0' + outcome.detail;
}

std::optional<TestOutcome> decode(const std::string& data) {
  std::size_t nul = data.find('\0');
  if (data.empty() || nul == std::string::npos) return std::nullopt;
  int kind = data[0] - '0';
  if (kind < 0 || kind > 2) return std::nullopt;
  return TestOutcome{static_cast<Outcome>(kind), data.substr(1, nul - 1), data.substr(nul + 1)};
}

void write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n <= 0) return;
    data.remove_prefix(static_cast<std::size_t>(n));
  }
}

}  // namespace

Env conformance_env() {
  // kube's environment for stored expressions: the standard library, optional types, cel-go's strings extension
  // and two-variable comprehensions (which string_ext and macros2 test), and kube's own libraries beside them.
  Env env = ext::kube_stored_env();
  // cel-go's conformance environment has neither of kube's literal checks: mixed-type list and map literals
  // type-check, and bad duration, timestamp and regex literals fail when evaluated, as the tests expect.
  env.checker_options.homogeneous_aggregate_literals = false;
  env.checker_options.validate_literals = false;
  return env;
}

TestOutcome Runner::run(const SimpleTest& test) const {
  std::string stage = "runner";
  try {
    auto env = std::make_shared<Env>(base_env_);
    for (const ::cel::expr::Decl& decl : test.type_env()) declare(*env, decl);
    MapActivation activation;
    for (const auto& [name, binding] : test.bindings()) activation.set(name, to_cel_value(binding));

    stage = "parse";
    ParseResult parsed = parse(test.expr(), env->parser_options);
    if (!parsed.ast) return failed(stage, parsed.issues.to_display_string(test.expr(), SourceInfo{}));

    std::optional<Program> program;
    if (test.disable_check()) {
      stage = "plan";
      program = Program::plan_unchecked(env, std::make_shared<const ParsedAst>(std::move(*parsed.ast)));
    } else {
      stage = "check";
      CheckResult checked = check(*env, std::move(*parsed.ast));
      if (!checked.ast) {
        return failed(stage, checked.message.empty()
                                 ? checked.issues.to_display_string(test.expr(), SourceInfo{})
                                 : checked.message);
      }
      if (test.has_typed_result() && test.typed_result().has_deduced_type()) {
        stage = "type";
        Type want = to_cel_type(test.typed_result().deduced_type());
        const Type& got = checked.ast->result_type();
        if (!(want == got)) return failed(stage, "want " + want.to_string() + ", got " + got.to_string());
      }
      if (test.check_only()) return {};
      stage = "plan";
      program = Program::plan(env, std::make_shared<const CheckedAst>(std::move(*checked.ast)));
    }
    stage = "eval";
    EvalResult result = program->eval(activation);
    stage = "result";
    return match(test, result.value);
  } catch (const Unsupported& e) {
    return failed("runner", e.what());
  } catch (const std::exception& e) {
    return failed(stage, std::string("threw: ") + e.what());
  }
}

TestOutcome Runner::run_isolated(const SimpleTest& test, std::chrono::seconds time_limit) const {
  int fds[2];
  if (::pipe(fds) != 0) return failed("runner", std::string("pipe: ") + std::strerror(errno));
  std::fflush(stdout);
  std::fflush(stderr);
  pid_t child = ::fork();
  if (child < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return failed("runner", std::string("fork: ") + std::strerror(errno));
  }
  if (child == 0) {
    ::close(fds[0]);
    ::alarm(static_cast<unsigned>(time_limit.count()));
    write_all(fds[1], encode(run(test)));
    ::_exit(0);
  }
  ::close(fds[1]);
  std::string data;
  char buffer[4096];
  for (;;) {
    ssize_t n = ::read(fds[0], buffer, sizeof buffer);
    if (n > 0) {
      data.append(buffer, static_cast<std::size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      break;
    }
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFSIGNALED(status)) {
    if (WTERMSIG(status) == SIGALRM) {
      return failed("timeout", "still running after " + std::to_string(time_limit.count()) + " s");
    }
    return failed("crash", std::string("killed by signal: ") + ::strsignal(WTERMSIG(status)));
  }
  if (auto outcome = decode(data)) return *outcome;
  return failed("crash", "exited with status " + std::to_string(WEXITSTATUS(status)) + " and no outcome");
}

}  // namespace kapi::cel::conformance
