#include "server/apis/core/pod_deletion.h"

#include "server/registry/json_fields.h"

namespace kapi::apis::core {

using namespace registry::fields;

std::int64_t pod_deletion_grace_period(const json::object& pod, std::optional<std::int64_t> requested) {
  const json::object* spec = object_at(pod, "spec");
  std::int64_t period = requested ? *requested : int_or_zero(spec, "terminationGracePeriodSeconds");
  const std::string_view phase = string_at(object_at(pod, "status"), "phase");
  // Nothing runs a pod no node has taken, or one that has finished: it goes at once.
  if (string_at(spec, "nodeName").empty() || phase == "Failed" || phase == "Succeeded") period = 0;
  if (period < 0) period = 1;
  return period;
}

}  // namespace kapi::apis::core
