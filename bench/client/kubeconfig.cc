#include "bench/client/kubeconfig.h"

#include "base/base64.h"

#include <yaml-cpp/yaml.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string_view>
#include <utility>
#include <vector>

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

// client-go's exec credential plugin (k8s.io/client-go/plugin/pkg/client/auth/exec): the command with its args and
// env added to kapi-bench's, KUBERNETES_EXEC_INFO naming the apiVersion it asked for; its standard output is an
// ExecCredential whose status holds a token, or a client certificate and key.
void run_exec_plugin(const YAML::Node& exec, const std::filesystem::path& base, KubeconfigCredentials& credentials) {
  if (!exec["command"]) throw std::runtime_error("kubeconfig: exec without a command");
  std::string command = exec["command"].as<std::string>();
  // As client-go: a command with a path separator is relative to the kubeconfig's folder; a bare name is looked up
  // in PATH.
  if (command.find('/') != std::string::npos && !std::filesystem::path(command).is_absolute())
    command = (base / command).string();
  std::vector<std::string> argv{command};
  if (exec["args"])
    for (const auto& arg : exec["args"]) argv.push_back(arg.as<std::string>());
  const std::string api_version = exec["apiVersion"] ? exec["apiVersion"].as<std::string>()
                                                     : "client.authentication.k8s.io/v1";
  std::vector<std::pair<std::string, std::string>> env{
      {"KUBERNETES_EXEC_INFO", R"({"apiVersion":")" + api_version +
                                   R"(","kind":"ExecCredential","spec":{"interactive":false}})"}};
  if (exec["env"])
    for (const auto& variable : exec["env"])
      env.emplace_back(variable["name"].as<std::string>(), variable["value"].as<std::string>());

  // The child's environment is built before fork: only async-signal-safe calls may follow it.
  std::vector<std::string> environment;
  for (char** variable = environ; *variable; ++variable) {
    const std::string_view entry(*variable);
    const auto name = entry.substr(0, entry.find('='));
    if (std::none_of(env.begin(), env.end(), [&](const auto& added) { return added.first == name; }))
      environment.emplace_back(entry);
  }
  for (const auto& [name, value] : env) environment.push_back(name + "=" + value);
  std::vector<char*> envp;
  for (auto& entry : environment) envp.push_back(entry.data());
  envp.push_back(nullptr);
  std::vector<char*> args;
  for (auto& arg : argv) args.push_back(arg.data());
  args.push_back(nullptr);

  int out[2];
  if (::pipe(out) != 0) throw std::runtime_error("kubeconfig exec: pipe failed");
  const pid_t child = ::fork();
  if (child < 0) throw std::runtime_error("kubeconfig exec: fork failed");
  if (child == 0) {
    ::dup2(out[1], STDOUT_FILENO);
    ::close(out[0]);
    ::close(out[1]);
    ::execvpe(args[0], args.data(), envp.data());
    ::_exit(127);
  }
  ::close(out[1]);
  std::string output;
  char buffer[4096];
  for (ssize_t n; (n = ::read(out[0], buffer, sizeof buffer)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    output.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(out[0]);
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw std::runtime_error("kubeconfig exec: " + command + " failed (status " + std::to_string(status) + ")");
  YAML::Node credential = YAML::Load(output);  // JSON is YAML
  const YAML::Node result = credential["status"];
  if (!result) throw std::runtime_error("kubeconfig exec: " + command + " printed no ExecCredential status");
  if (result["token"]) credentials.token = result["token"].as<std::string>();
  if (result["clientCertificateData"] && result["clientKeyData"]) {
    credentials.client_cert_pem = result["clientCertificateData"].as<std::string>();
    credentials.client_key_pem = result["clientKeyData"].as<std::string>();
  }
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
  const bool skip_verify = cluster["insecure-skip-tls-verify"] && cluster["insecure-skip-tls-verify"].as<bool>();
  if (!skip_verify) credentials.ca_pem = pem_field(cluster, "certificate-authority", base);
  if (user["client-certificate"] || user["client-certificate-data"]) {
    credentials.client_cert_pem = pem_field(user, "client-certificate", base);
    credentials.client_key_pem = pem_field(user, "client-key", base);
  }
  if (user["token"]) {
    credentials.token = user["token"].as<std::string>();
  } else if (user["tokenFile"]) {
    std::filesystem::path file = user["tokenFile"].as<std::string>();
    credentials.token = read_text(file.is_absolute() ? file : base / file);
    while (!credentials.token.empty() && std::isspace(static_cast<unsigned char>(credentials.token.back())))
      credentials.token.pop_back();
  }
  if (user["exec"]) run_exec_plugin(user["exec"], base, credentials);
  if (credentials.token.empty() && credentials.client_cert_pem.empty())
    throw std::runtime_error("kubeconfig: user " + context["user"].as<std::string>() +
                             " has no client certificate, token or exec plugin");
  return credentials;
}

}  // namespace kapi::bench
