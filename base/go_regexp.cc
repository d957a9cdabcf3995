#include "base/go_regexp.h"

namespace kapi::base {
namespace {

// regexp/syntax's ErrorCode texts for RE2's codes.
std::string go_error_code(RE2::ErrorCode code) {
  switch (code) {
    case RE2::ErrorBadEscape: return "invalid escape sequence";
    case RE2::ErrorBadCharClass: return "invalid character class";
    case RE2::ErrorBadCharRange: return "invalid character class range";
    case RE2::ErrorMissingBracket: return "missing closing ]";
    case RE2::ErrorMissingParen: return "missing closing )";
    case RE2::ErrorUnexpectedParen: return "unexpected )";
    case RE2::ErrorTrailingBackslash: return "trailing backslash at end of expression";
    case RE2::ErrorRepeatArgument: return "missing argument to repetition operator";
    case RE2::ErrorRepeatSize: return "invalid repeat count";
    case RE2::ErrorRepeatOp: return "invalid nested repetition operator";
    case RE2::ErrorBadPerlOp: return "invalid or unsupported Perl syntax";
    case RE2::ErrorBadUTF8: return "invalid UTF-8";
    case RE2::ErrorBadNamedCapture: return "invalid named capture";
    case RE2::ErrorPatternTooLarge: return "expression too large";
    default: return "invalid regular expression";
  }
}

}  // namespace

RE2::Options go_regexp_options() {
  RE2::Options options;
  options.set_log_errors(false);
  return options;
}

std::string go_regexp_error(const RE2& refused) {
  return "error parsing regexp: " + go_error_code(refused.error_code()) + ": `" + refused.error_arg() + "`";
}

}  // namespace kapi::base
