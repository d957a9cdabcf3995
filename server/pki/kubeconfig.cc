#include "server/pki/kubeconfig.h"

#include "base/base64.h"

#include <cstdio>

namespace kapi::pki {
namespace {

bool is_plain_scalar_safe(std::string_view text) {
  if (text.empty()) return false;
  for (char c : text) {
    const bool safe = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == ':' ||
                      c == '/' || c == '.' || c == '-' || c == '_' || c == '[' || c == ']' || c == '%';
    if (!safe) return false;
  }
  return text.front() != '[';  // a leading '[' would start a flow sequence
}

// JSON string syntax is valid YAML double-quoted syntax, so anything unusual is emitted that way.
std::string yaml_scalar(std::string_view text) {
  if (is_plain_scalar_safe(text)) return std::string(text);
  std::string quoted = "\"";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      quoted += '\\';
      quoted += static_cast<char>(c);
    } else if (c < 0x20) {
      char escape[8];
      std::snprintf(escape, sizeof escape, "\\u%04x", c);
      quoted += escape;
    } else {
      quoted += static_cast<char>(c);
    }
  }
  quoted += '"';
  return quoted;
}

}  // namespace

std::string render_kubeconfig(std::string_view server_url, std::string_view ca_pem, std::string_view client_cert_pem,
                              std::string_view client_key_pem) {
  std::string out;
  out += "apiVersion: v1\n";
  out += "kind: Config\n";
  out += "clusters:\n";
  out += "- cluster:\n";
  out += "    certificate-authority-data: " + base::base64_encode(ca_pem) + "\n";
  out += "    server: " + yaml_scalar(server_url) + "\n";
  out += "  name: kapi\n";
  out += "contexts:\n";
  out += "- context:\n";
  out += "    cluster: kapi\n";
  out += "    user: kapi-admin\n";
  out += "  name: kapi\n";
  out += "current-context: kapi\n";
  out += "preferences: {}\n";
  out += "users:\n";
  out += "- name: kapi-admin\n";
  out += "  user:\n";
  out += "    client-certificate-data: " + base::base64_encode(client_cert_pem) + "\n";
  out += "    client-key-data: " + base::base64_encode(client_key_pem) + "\n";
  return out;
}

}  // namespace kapi::pki
