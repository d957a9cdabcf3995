#pragma once
// A CronJob's schedule as kube checks it: robfig/cron/v3's ParseStandard (five fields, or an @descriptor, after an
// optional TZ=/CRON_TZ= prefix) with its error texts, and time zone names as time.LoadLocation accepts them.
#include <optional>
#include <string>
#include <string_view>

namespace kapi::apis::batch {

// Why ParseStandard refuses `schedule` ("expected exactly 5 fields, found 4: [* * * *]"), or std::nullopt.
std::optional<std::string> cron_schedule_error(std::string_view schedule);

// Why time.LoadLocation refuses `name` ("unknown time zone Mars/Olympus"), or std::nullopt. "" and "UTC" are UTC;
// other names are looked up in the system's tz database.
std::optional<std::string> time_zone_error(std::string_view name);

}  // namespace kapi::apis::batch
