#pragma once

#include <string>
#include <string_view>

namespace kapi::pki {

// A kubeconfig with one cluster "kapi", one user "kapi-admin" and one context "kapi" (the current one), the PEM
// arguments embedded as *-data fields, laid out the way `kubectl config view --raw` prints it.
std::string render_kubeconfig(std::string_view server_url, std::string_view ca_pem, std::string_view client_cert_pem,
                              std::string_view client_key_pem);

}  // namespace kapi::pki
