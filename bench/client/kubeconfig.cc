#include "bench/client/kubeconfig.h"

#include "base/base64.h"

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace kapi::bench {
namespace {

std::string read_text(const std::filesystem::path& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw std::runtime_error("cannot read " + path.string());
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

std::string base64_decode(const std::string& encoded) {
  auto decoded = base::base64_decode(encoded);
  if (!decoded) throw std::runtime_error("kubeconfig: bad base64");
  return std::move(*decoded);
}

// The *-data field when present, else the file the plain field names (relative to the kubeconfig's folder).
std::string pem_field(const YAML::Node& node, const std::string& name, const std::filesystem::path& base) {
  if (node[name + "-data"]) return base64_decode(node[name + "-data"].as<std::string>());
  if (node[name]) {
    std::filesystem::path path = node[name].as<std::string>();
    return read_text(path.is_absolute() ? path : base / path);
  }
  throw std::runtime_error("kubeconfig: no " + name + " or " + name + "-data");
}

YAML::Node named(const YAML::Node& list, const std::string& name, const std::string& what) {
  for (const auto& entry : list)
    if (entry["name"] && entry["name"].as<std::string>() == name) return entry[what];
  throw std::runtime_error("kubeconfig: no " + what + " named " + name);
}

}  // namespace

KubeconfigCredentials load_kubeconfig(const std::string& path) {
  YAML::Node config = YAML::Load(read_text(path));
  const auto base = std::filesystem::absolute(path).parent_path();
  if (!config["current-context"]) throw std::runtime_error("kubeconfig: no current-context");
  auto context = named(config["contexts"], config["current-context"].as<std::string>(), "context");
  auto cluster = named(config["clusters"], context["cluster"].as<std::string>(), "cluster");
  auto user = named(config["users"], context["user"].as<std::string>(), "user");
  KubeconfigCredentials credentials;
  credentials.server = cluster["server"].as<std::string>();
  credentials.ca_pem = pem_field(cluster, "certificate-authority", base);
  credentials.client_cert_pem = pem_field(user, "client-certificate", base);
  credentials.client_key_pem = pem_field(user, "client-key", base);
  return credentials;
}

}  // namespace kapi::bench
