#pragma once
// Go's %q, which kube puts in its error messages (field errors, selector errors, RBAC escalation, impersonation):
// strconv.Quote's escapes, byte for byte, so a client sees kube-apiserver's exact text.
#include <string>
#include <string_view>
#include <vector>

namespace kapi::base {

// strconv.Quote, as fmt's %q prints a string: a malformed UTF-8 byte as \xNN, a non-printable rune as \a..\v,
// \xNN, \uNNNN or \UNNNNNNNN, everything printable as itself.
std::string go_quote(std::string_view text);

// fmt's %q of a []string: ["a" "b"], each item as go_quote writes it.
std::string go_quote_list(const std::vector<std::string>& items);

// fmt's %#v of a non-nil []string, as field errors print a list value: []string{"a", "b"}.
std::string go_string_slice(const std::vector<std::string>& items);

// unicode.IsPrint, as strconv.Quote and kube's prefixFromUserAgent decide what to keep (see go_quote.cc for how
// closely).
bool go_is_print(char32_t rune);

// strconv.QuoteRune: 'x', with the same escapes as go_quote and \' for the quote itself.
std::string go_quote_rune(char32_t rune);

}  // namespace kapi::base
