#include "server/registry/table.h"

#include "base/go_time.h"
#include "server/registry/object_meta.h"

namespace kapi::registry {

std::string human_duration(std::chrono::seconds elapsed) {
  const std::int64_t seconds = elapsed.count();
  auto str = [](std::int64_t n) { return std::to_string(n); };
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  if (seconds < 60 * 2) return str(seconds) + "s";
  const std::int64_t minutes = seconds / 60;
  if (minutes < 10) return seconds % 60 == 0 ? str(minutes) + "m" : str(minutes) + "m" + str(seconds % 60) + "s";
  if (minutes < 60 * 3) return str(minutes) + "m";
  const std::int64_t hours = minutes / 60;
  if (hours < 8) return minutes % 60 == 0 ? str(hours) + "h" : str(hours) + "h" + str(minutes % 60) + "m";
  if (hours < 48) return str(hours) + "h";
  if (hours < 24 * 8) return hours % 24 == 0 ? str(hours / 24) + "d" : str(hours / 24) + "d" + str(hours % 24) + "h";
  if (hours < 24 * 365 * 2) return str(hours / 24) + "d";
  if (hours < 24 * 365 * 8) {
    const std::int64_t days = (hours / 24) % 365;
    return days == 0 ? str(hours / 24 / 365) + "y" : str(hours / 24 / 365) + "y" + str(days) + "d";
  }
  return str(hours / 24 / 365) + "y";
}

std::string age_of(const boost::json::object& object) {
  const auto created = base::parse_rfc3339(meta_string(object, "creationTimestamp"));
  if (!created) return "<unknown>";
  const std::int64_t now = base::unix_time(std::chrono::system_clock::now()).seconds;
  return human_duration(std::chrono::seconds(now - created->seconds));
}

TableColumn name_column() {
  return {"Name", "string", "name",
          "Name must be unique within a namespace. Is required when creating resources, although some resources "
          "may allow a client to request the generation of an appropriate name automatically. Name is primarily "
          "intended for creation idempotence and configuration definition. Cannot be updated. More info: "
          "https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names",
          0};
}

TableColumn age_column() {
  return {"Age", "string", "",
          "CreationTimestamp is a timestamp representing the server time when this object was created. It is not "
          "guaranteed to be set in happens-before order across separate operations. Clients may not set this "
          "value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for "
          "lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/"
          "api-conventions.md#metadata",
          0};
}

std::vector<TableColumn> default_table_columns() {
  TableColumn created = age_column();
  created.name = "Created At";
  created.type = "date";
  return {name_column(), created};
}

boost::json::array default_table_cells(const boost::json::object& object) {
  return {boost::json::string(meta_string(object, "name")), boost::json::string(meta_string(object, "creationTimestamp"))};
}

}  // namespace kapi::registry
