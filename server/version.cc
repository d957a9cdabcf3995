#include "server/version.h"

#include <boost/json.hpp>

namespace kapi::server {

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
