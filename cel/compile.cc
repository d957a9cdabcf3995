#include "cel/compile.h"

namespace kapi::cel {

CheckResult compile(const Env& env, std::string_view text) {
  ParseResult parsed = parse(text, env.parser_options);
  if (!parsed.ast) {
    CheckResult failed;
    failed.message = parsed.issues.to_display_string(std::string(text), SourceInfo{});
    failed.issues = std::move(parsed.issues);
    return failed;
  }
  return check(env, std::move(*parsed.ast));
}

}  // namespace kapi::cel
