#pragma once
// /version, as kube-apiserver's version.Info. The minor version matters: kubectl's dispatcher on these machines
// runs the bundled kubectl that matches it.
#include <string>
#include <string_view>

namespace kapi::server {

// The compiler's __DATE__ ("Dec 10 2024") and __TIME__ ("11:33:43") as RFC 3339 ("2024-12-10T11:33:43Z"), the form
// kube's buildDate has (its builds stamp `date -u`; a build machine's clock is taken as UTC here).
std::string rfc3339_build_date(std::string_view date, std::string_view time);

struct VersionInfo {
  std::string major = "1";
  std::string minor = "32";
  std::string git_version = "v1.32.0-kapi.0.1.0";
  std::string git_commit = "unknown";
  std::string git_tree_state = "clean";
  std::string build_date = rfc3339_build_date(__DATE__, __TIME__);
  std::string compiler = "g++";
  std::string platform = "linux/amd64";
};

std::string to_json(const VersionInfo& info);

}  // namespace kapi::server
