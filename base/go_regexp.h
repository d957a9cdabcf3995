#pragma once
// Go's regexp, on RE2: Go's regexp implements RE2's syntax and its linear-time matching, so a pattern from a user
// (a CRD's `pattern`, a CEL expression's) is read and run as kube reads and runs it, in time linear in the input
// and without recursion per input character.
#include <re2/re2.h>

#include <string>

namespace kapi::base {

// regexp.Compile's reading of a pattern (RE2's defaults: UTF-8, Perl classes, leftmost-first); a refused pattern
// is reported by go_regexp_error, not logged.
RE2::Options go_regexp_options();

// regexp.Compile's error for a pattern RE2 refused: "error parsing regexp: missing closing ): `(a`".
std::string go_regexp_error(const RE2& refused);

}  // namespace kapi::base
