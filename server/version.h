#pragma once
// /version, as kube-apiserver's version.Info. The minor version matters: kubectl's dispatcher on these machines
// runs the bundled kubectl that matches it.
#include <string>

namespace kapi::server {

struct VersionInfo {
  std::string major = "1";
  std::string minor = "32";
  std::string git_version = "v1.32.0-kapi.0.1.0";
  std::string git_commit = "unknown";
  std::string git_tree_state = "clean";
  std::string build_date = __DATE__ " " __TIME__;
  std::string compiler = "g++";
  std::string platform = "linux/amd64";
};

std::string to_json(const VersionInfo& info);

}  // namespace kapi::server
