#pragma once
// Go's time.ParseDuration, for flags and query parameters that kube-apiserver reads as Go durations
// ("60s", "1m30s", "500ms", "2h").
#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace kapi::base {

std::optional<std::chrono::nanoseconds> parse_go_duration(std::string_view text);
std::string format_go_duration(std::chrono::nanoseconds duration);

}  // namespace kapi::base
