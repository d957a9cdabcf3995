#include "server/version.h"

#include <boost/json.hpp>

namespace kapi::server {

std::string rfc3339_build_date(std::string_view date, std::string_view time) {
  constexpr std::string_view kMonths = "JanFebMarAprMayJunJulAugSepOctNovDec";
  const std::size_t month = kMonths.find(date.substr(0, 3)) / 3 + 1;
  std::string day(date.substr(4, 2));
  if (day[0] == ' ') day[0] = '0';
  return std::string(date.substr(7, 4)) + "-" + (month < 10 ? "0" : "") + std::to_string(month) + "-" + day + "T" +
         std::string(time) + "Z";
}

std::string to_json(const VersionInfo& info) {
  boost::json::object out;
  out["major"] = info.major;
  out["minor"] = info.minor;
  out["gitVersion"] = info.git_version;
  out["gitCommit"] = info.git_commit;
  out["gitTreeState"] = info.git_tree_state;
  out["buildDate"] = info.build_date;
  out["goVersion"] = "";  // kapi is not built with Go; the field stays for clients that decode version.Info
  out["compiler"] = info.compiler;
  out["platform"] = info.platform;
  return boost::json::serialize(out);
}

}  // namespace kapi::server
