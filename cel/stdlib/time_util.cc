// Timestamp and duration helpers after cel-go's common/types (timestamp.go, duration.go, overflow.go) and Go's
// time.Parse(time.RFC3339) / time.ParseDuration.
#include "cel/stdlib/time_util.h"

#include <cstdio>

#include "base/duration.h"
#include "base/go_strconv.h"
#include "base/go_time.h"
#include "cel/stdlib/format.h"

namespace kapi::cel::stdlib {
namespace {

constexpr std::int64_t kNanosPerSecond = 1'000'000'000;

Value timestamp_overflow() { return Value::error(ErrorCode::kOverflow, "timestamp overflow"); }
Value integer_overflow() { return Value::error(ErrorCode::kOverflow, "integer overflow"); }

struct Civil {
  std::int64_t year;
  int month, day, hour, minute, second;
};

// Howard Hinnant's civil_from_days.
Civil civil_from_unix(std::int64_t seconds) {
  std::int64_t days = seconds / 86400;
  std::int64_t rem = seconds % 86400;
  if (rem < 0) {
    rem += 86400;
    --days;
  }
  days += 719468;
  const std::int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  const std::int64_t doe = days - era * 146097;
  const std::int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const std::int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const std::int64_t mp = (5 * doy + 2) / 153;
  const int day = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
  const int month = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
  const std::int64_t year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  return Civil{year, month, day, static_cast<int>(rem / 3600), static_cast<int>(rem % 3600 / 60),
               static_cast<int>(rem % 60)};
}

}  // namespace

Value add_timestamp_duration(Timestamp t, Duration d) {
  std::int64_t seconds;
  if (__builtin_add_overflow(t.seconds, d.nanos / kNanosPerSecond, &seconds)) return integer_overflow();
  std::int64_t nanos = t.nanos + d.nanos % kNanosPerSecond;
  if (nanos < 0) {
    nanos += kNanosPerSecond;
    if (__builtin_sub_overflow(seconds, 1, &seconds)) return integer_overflow();
  } else if (nanos >= kNanosPerSecond) {
    nanos -= kNanosPerSecond;
    if (__builtin_add_overflow(seconds, 1, &seconds)) return integer_overflow();
  }
  if (seconds < kMinUnixSeconds || seconds > kMaxUnixSeconds) return timestamp_overflow();
  return Value(Timestamp{seconds, static_cast<std::int32_t>(nanos)});
}

Value subtract_timestamps(Timestamp a, Timestamp b) {
  std::int64_t seconds, nanos;
  if (__builtin_sub_overflow(a.seconds, b.seconds, &seconds)) return integer_overflow();
  if (__builtin_mul_overflow(seconds, kNanosPerSecond, &nanos)) return integer_overflow();
  if (__builtin_add_overflow(nanos, static_cast<std::int64_t>(a.nanos) - b.nanos, &nanos)) return integer_overflow();
  return Value(Duration{nanos});
}

Value timestamp_from_string(std::string_view text) {
  std::optional<base::UnixTime> parsed = base::parse_rfc3339(text);
  if (!parsed) {
    return Value::error(ErrorCode::kInvalidArgument,
                        "type conversion error from 'string' to 'google.protobuf.Timestamp'");
  }
  if (parsed->seconds < kMinUnixSeconds || parsed->seconds > kMaxUnixSeconds) return timestamp_overflow();
  return Value(Timestamp{parsed->seconds, parsed->nanos});
}

std::string timestamp_to_string(Timestamp t) {
  Civil c = civil_from_unix(t.seconds);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04lld-%02d-%02dT%02d:%02d:%02d", static_cast<long long>(c.year), c.month, c.day,
                c.hour, c.minute, c.second);
  std::string out = buf;
  if (t.nanos != 0) {
    char fraction[16];
    std::snprintf(fraction, sizeof fraction, ".%09d", static_cast<int>(t.nanos));
    std::string digits = fraction;
    while (digits.back() == '0') digits.pop_back();
    out += digits;
  }
  return out + "Z";
}

Value duration_from_string(std::string_view text) {
  std::optional<std::chrono::nanoseconds> parsed = base::parse_go_duration(text);
  if (!parsed) {
    return Value::error(ErrorCode::kInvalidArgument,
                        "type conversion error from 'string' to 'google.protobuf.Duration'");
  }
  return Value(Duration{parsed->count()});
}

std::string duration_to_string(Duration d) {
  // Go's Duration.Seconds(): whole seconds plus the fraction, computed apart to keep precision.
  double seconds = static_cast<double>(d.nanos / kNanosPerSecond) +
                   static_cast<double>(d.nanos % kNanosPerSecond) / 1e9;
  return base::go_format_float_fixed(seconds) + "s";
}

}  // namespace kapi::cel::stdlib
