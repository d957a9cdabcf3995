#pragma once
// %q quoting (strconv.Quote), as kube's selector errors print a value.
#include <string>
#include <string_view>
#include <vector>

namespace kapi::selectors::go {

// strconv.Quote, as fmt's %q prints a string.
std::string quote(std::string_view text);
// fmt's %q of a []string: ["a" "b"], each item as quote() writes it.
std::string quote_list(const std::vector<std::string>& items);

}  // namespace kapi::selectors::go
