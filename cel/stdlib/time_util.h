#pragma once
// Timestamp and duration arithmetic, parsing and formatting as cel-go does them (common/types/timestamp.go,
// duration.go, overflow.go): timestamps within 0001-01-01T00:00:00Z..9999-12-31T23:59:59.999999999Z, durations as
// int64 nanoseconds.
#include <optional>
#include <string>
#include <string_view>

#include "cel/value.h"

namespace kapi::cel::stdlib {

inline constexpr std::int64_t kMinUnixSeconds = -62135596800;  // 0001-01-01T00:00:00Z
inline constexpr std::int64_t kMaxUnixSeconds = 253402300799;  // 9999-12-31T23:59:59Z

Value add_timestamp_duration(Timestamp t, Duration d);     // "timestamp overflow" out of range
Value subtract_timestamps(Timestamp a, Timestamp b);       // "integer overflow" past int64 nanoseconds
Value timestamp_from_string(std::string_view text);        // time.Parse(time.RFC3339, text)
std::string timestamp_to_string(Timestamp t);              // t.Format(time.RFC3339Nano) in UTC
Value duration_from_string(std::string_view text);         // time.ParseDuration
std::string duration_to_string(Duration d);                // strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + "s"

}  // namespace kapi::cel::stdlib
