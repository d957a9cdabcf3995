#pragma once
// Times in the text forms Go's time package writes and reads: RFC 3339 for metav1.Time ("2006-01-02T15:04:05Z")
// and metav1.MicroTime ("2006-01-02T15:04:05.000000Z"), and net/http's TimeFormat for Date and Expires headers.
// Computed from the proleptic Gregorian calendar, so every year 0001..9999 works and nothing depends on the C
// library's time zone or locale.
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kapi::base {

// Seconds since the Unix epoch and the nanoseconds into that second (0..999999999), as protobuf Timestamps count.
struct UnixTime {
  std::int64_t seconds = 0;
  std::int32_t nanos = 0;
  friend bool operator==(const UnixTime&, const UnixTime&) = default;
};

UnixTime unix_time(std::chrono::system_clock::time_point time);

// time.Time{}: what Go's IsZero means (0001-01-01T00:00:00Z); metav1.Time writes it as JSON null.
inline constexpr std::int64_t kZeroTimeSeconds = -62135596800;

// time.Parse(time.RFC3339, text): "2006-01-02T15:04:05Z", with optional fractional seconds and a numeric offset
// ("+02:00") converted to UTC. std::nullopt when the text is not such a time.
std::optional<UnixTime> parse_rfc3339(std::string_view text);

// The layouts metav1.Time (time.RFC3339) and metav1.MicroTime ("2006-01-02T15:04:05.000000Z07:00") read JSON with.
enum class TimeLayout { kRfc3339, kRfc3339Micro };
struct GoParsedTime {
  std::optional<UnixTime> time;
  std::string error;  // *time.ParseError's text when there is no time
};
// time.Parse(layout, text) as Go's general parser reads it, which is how kube decodes a Time or MicroTime in a
// body: more leniently than parse_rfc3339 (a one-digit hour, "," before a fraction, offsets up to 24:60), an
// exact six-digit fraction for MicroTime, and Go's error ("parsing time \"x\" as \"2006-01-02T15:04:05Z07:00\":
// cannot parse \"x\" as \"2006\"", "parsing time \"2006-13-02T15:04:05Z\": month out of range").
// `any_year` also reads the years Go's Format writes and time.Parse refuses: past 9999 and before 0
// ("10000-01-01T00:00:00Z", "-0001-12-31T23:59:59Z"), which a protobuf Time may hold.
GoParsedTime parse_go_time(std::string_view text, TimeLayout layout, bool any_year = false);
// t.UTC().Format(time.RFC3339): seconds only, always "Z" (metav1.Time's JSON form).
std::string format_rfc3339(std::int64_t seconds);
// t.UTC().Format("2006-01-02T15:04:05.000000Z07:00"): six fractional digits, truncated (metav1.MicroTime).
std::string format_rfc3339_micro(UnixTime time);
// metav1.NowMicro() in its JSON form: what leases' acquireTime and renewTime hold.
std::string micro_time_now();

// t.UTC().Format(http.TimeFormat): "Mon, 02 Jan 2006 15:04:05 GMT", the form of Date and Expires headers.
std::string format_http_date(std::int64_t seconds);

}  // namespace kapi::base
