#pragma once

// Helpers the PKI tests share: a self-removing temporary directory, certificate inspection, running a command.

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <arpa/inet.h>
#include <signal.h>
#include <sys/wait.h>

#include <gtest/gtest.h>
#include <openssl/x509v3.h>

#include "tests/support/command.h"
#include "server/pki/openssl_handles.h"
#include "server/pki/pem_io.h"

namespace kapi::pki::testing {

class TemporaryDirectory {
 public:
  TemporaryDirectory() {
    std::string name_template = (std::filesystem::temp_directory_path() / "kapi-pki-test-XXXXXX").string();
    if (::mkdtemp(name_template.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = name_template;
  }
  TemporaryDirectory(const TemporaryDirectory&) = delete;
  TemporaryDirectory& operator=(const TemporaryDirectory&) = delete;
  ~TemporaryDirectory() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// "DNS:name" / "IP:address" for each subjectAltName entry, in certificate order.
inline std::vector<std::string> subject_alt_names(X509* certificate) {
  std::vector<std::string> result;
  GeneralNamesPtr names(
      static_cast<GENERAL_NAMES*>(X509_get_ext_d2i(certificate, NID_subject_alt_name, nullptr, nullptr)));
  if (!names) return result;
  for (int i = 0; i < sk_GENERAL_NAME_num(names.get()); ++i) {
    const GENERAL_NAME* name = sk_GENERAL_NAME_value(names.get(), i);
    if (name->type == GEN_DNS) {
      const ASN1_IA5STRING* dns = name->d.dNSName;
      result.push_back("DNS:" + std::string(reinterpret_cast<const char*>(ASN1_STRING_get0_data(dns)),
                                            static_cast<std::size_t>(ASN1_STRING_length(dns))));
    } else if (name->type == GEN_IPADD) {
      const ASN1_OCTET_STRING* address = name->d.iPAddress;
      char text[INET6_ADDRSTRLEN] = {};
      const int family = ASN1_STRING_length(address) == 4 ? AF_INET : AF_INET6;
      inet_ntop(family, ASN1_STRING_get0_data(address), text, sizeof text);
      result.push_back(std::string("IP:") + text);
    }
  }
  return result;
}

inline std::string subject_entry(X509* certificate, int nid) {
  char text[256] = {};
  const int length = X509_NAME_get_text_by_NID(X509_get_subject_name(certificate), nid, text, sizeof text);
  return length < 0 ? std::string() : std::string(text, static_cast<std::size_t>(length));
}

inline bool extension_is_critical(X509* certificate, int nid) {
  const int index = X509_get_ext_by_NID(certificate, nid, -1);
  return index >= 0 && X509_EXTENSION_get_critical(X509_get_ext(certificate, index)) == 1;
}

// Verifies `leaf` against `root` alone, as a TLS peer of the given purpose (X509_PURPOSE_SSL_SERVER / _CLIENT).
// Returns X509_V_OK or the verification error.
inline int verify_chain(X509* root, X509* leaf, int purpose) {
  X509StorePtr store(X509_STORE_new());
  X509_STORE_add_cert(store.get(), root);
  X509StoreContextPtr context(X509_STORE_CTX_new());
  X509_STORE_CTX_init(context.get(), store.get(), leaf, nullptr);
  X509_STORE_CTX_set_purpose(context.get(), purpose);
  const int verified = X509_verify_cert(context.get());
  return verified == 1 ? X509_V_OK : X509_STORE_CTX_get_error(context.get());
}

using test_support::CommandResult;
using test_support::run_command;

// `openssl s_server` on a free loopback port, killed on destruction.
class OpensslServer {
 public:
  // `arguments` are appended to "openssl s_server -accept 127.0.0.1:0".
  explicit OpensslServer(const std::string& arguments)
      : pipe_(::popen(("echo $$; exec openssl s_server -accept 127.0.0.1:0 " + arguments + " 2>&1").c_str(),
                      "r"),
              ::pclose) {
    if (!pipe_) return;
    // The shell prints its pid, then becomes openssl (same pid), which prints "ACCEPT 127.0.0.1:<port>" once bound.
    char line[512];
    while (std::fgets(line, sizeof line, pipe_.get())) {
      const std::string text(line);
      if (pid_ == 0) {
        pid_ = static_cast<pid_t>(std::stol(text));
      } else if (text.rfind("ACCEPT ", 0) == 0) {
        port_ = std::stoi(text.substr(text.rfind(':') + 1));
        return;
      }
    }
  }
  OpensslServer(const OpensslServer&) = delete;
  OpensslServer& operator=(const OpensslServer&) = delete;
  ~OpensslServer() {
    if (pid_ > 0) ::kill(pid_, SIGTERM);
  }
  int port() const { return port_; }  // 0 if the server did not start

 private:
  std::unique_ptr<FILE, int (*)(FILE*)> pipe_;
  pid_t pid_ = 0;
  int port_ = 0;
};

inline std::string shell_quote(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

}  // namespace kapi::pki::testing
