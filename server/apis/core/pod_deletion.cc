#include "server/apis/core/pod_deletion.h"

#include "server/apis/core/core_validation.h"
#include "base/json_fields.h"
#include "server/registry/object_meta.h"

#include <chrono>

namespace kapi::apis::core {

using namespace base::fields;

std::optional<json::object> graceful_pod_deletion(const json::object& pod,
                                                  std::optional<std::int64_t> grace_period_seconds) {
  const json::object* meta = object_at(pod, "metadata");
  const std::string_view deletion_timestamp = string_at(meta, "deletionTimestamp");
  if (!deletion_timestamp.empty()) {
    const std::int64_t pending = int_or_zero(meta, "deletionGracePeriodSeconds");
    if (pending == 0) return std::nullopt;  // a deletion already due: finish it
    if (!grace_period_seconds || *grace_period_seconds >= pending) return pod;  // only a shorter one counts
    if (*grace_period_seconds <= 0) return std::nullopt;
    // The deadline moves by the difference, as BeforeDelete moves it.
    json::object shortened = pod;
    auto& shortened_meta = registry::metadata_of(shortened);
    shortened_meta["deletionTimestamp"] =
        registry::rfc3339(parse_time(deletion_timestamp) - pending + *grace_period_seconds);
    shortened_meta["deletionGracePeriodSeconds"] = *grace_period_seconds;
    return shortened;
  }
  const json::object* spec = object_at(pod, "spec");
  const std::string_view phase = string_at(object_at(pod, "status"), "phase");
  std::int64_t period = grace_period_seconds ? *grace_period_seconds : int_or_zero(spec, "terminationGracePeriodSeconds");
  // Nothing runs a pod no node has taken, or one that has finished: it goes at once.
  if (string_at(spec, "nodeName").empty() || phase == "Failed" || phase == "Succeeded") period = 0;
  if (period < 0) period = 1;
  if (period == 0) return std::nullopt;
  const std::int64_t now = std::chrono::duration_cast<std::chrono::seconds>(
                               std::chrono::system_clock::now().time_since_epoch())
                               .count();
  json::object marked = pod;
  auto& marked_meta = registry::metadata_of(marked);
  marked_meta["deletionTimestamp"] = registry::rfc3339(now + period);
  marked_meta["deletionGracePeriodSeconds"] = period;
  return marked;
}

}  // namespace kapi::apis::core
