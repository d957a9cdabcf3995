// A fuzz target's own check failing (an invariant of the code under test, not a crash): said on stderr, then
// abort(), which libFuzzer reports as a crash and keeps the input that caused it as the finding.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace kapi::fuzz {

// `detail` is what makes the failure readable without rerunning it: the input, or what the code made of it.
[[noreturn]] inline void finding(std::string_view what, std::string_view detail = {}) {
  if (detail.empty()) {
    std::fprintf(stderr, "fuzz finding: %.*s\n", static_cast<int>(what.size()), what.data());
  } else {
    std::fprintf(stderr, "fuzz finding: %.*s (\"%.*s\")\n", static_cast<int>(what.size()), what.data(),
                 static_cast<int>(detail.size()), detail.data());
  }
  std::abort();
}

}  // namespace kapi::fuzz
