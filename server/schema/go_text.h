#pragma once
// The text forms Go gives values in Kubernetes' JSON, exactly as the Go library writes and reads them: RFC 3339
// times (metav1.Time, MicroTime), and time.Duration strings. The transcoder
// needs them byte for byte, so that a protobuf client and a JSON client see the same object.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kapi::schema {

// Seconds since the Unix epoch and the nanoseconds into that second (0..999999999), as protobuf Timestamps count.
struct UnixTime {
  std::int64_t seconds = 0;
  std::int32_t nanos = 0;
  friend bool operator==(const UnixTime&, const UnixTime&) = default;
};

// time.Time{}: what Go's IsZero means (0001-01-01T00:00:00Z); metav1.Time writes it as JSON null.
inline constexpr std::int64_t kZeroTimeSeconds = -62135596800;

// time.Parse(time.RFC3339, text): "2006-01-02T15:04:05Z", with optional fractional seconds and a numeric offset
// ("+02:00") converted to UTC. std::nullopt when the text is not such a time.
std::optional<UnixTime> parse_rfc3339(std::string_view text);
// t.UTC().Format(time.RFC3339): seconds only, always "Z" (metav1.Time's JSON form).
std::string format_rfc3339(std::int64_t seconds);
// t.UTC().Format("2006-01-02T15:04:05.000000Z07:00"): six fractional digits, truncated (metav1.MicroTime).
std::string format_rfc3339_micro(UnixTime time);

// time.ParseDuration: "1h2m3.5s", "-300ms", "1µs", "0"; nanoseconds, std::nullopt when malformed or beyond int64.
std::optional<std::int64_t> parse_go_duration(std::string_view text);
// time.Duration.String(): "1h0m0s", "1.5s", "300ms", "2µs", "0s".
std::string format_go_duration(std::int64_t nanoseconds);

}  // namespace kapi::schema
