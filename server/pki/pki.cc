#include "server/pki/pki.h"

#include <algorithm>
#include <functional>
#include <stdexcept>


#include <openssl/err.h>

#include "base/host_address.h"
#include "server/pki/pem_io.h"
#include "server/pki/x509_builder.h"

namespace kapi::pki {
namespace {

namespace fs = std::filesystem;

constexpr int kCaValidityDays = 3650;
constexpr int kLeafValidityDays = 365;
constexpr unsigned kServiceAccountKeyBits = 2048;

struct CertificateAndKey {
  fs::path certificate_path;
  fs::path key_path;
  X509Ptr certificate;
  EvpPkeyPtr key;

  Issuer as_issuer() const { return {certificate.get(), key.get()}; }
};

[[noreturn]] void fail(const std::string& message) {
  ERR_clear_error();  // a failed OpenSSL check may have queued reasons that are not this error's
  throw std::runtime_error("pki: " + message);
}

std::string quoted(const fs::path& path) { return "'" + path.string() + "'"; }

// Loads <base>.crt/.key, creating whichever is missing: a missing key is generated and a missing certificate issued
// (for the existing key, so a crash between the two writes heals). A certificate without its key cannot be healed.
CertificateAndKey ensure_certificate_and_key(const fs::path& dir, const std::string& base_name,
                                             const std::function<X509Ptr(EVP_PKEY*)>& issue) {
  CertificateAndKey pair{dir / (base_name + ".crt"), dir / (base_name + ".key"), nullptr, nullptr};
  const bool have_certificate = fs::exists(pair.certificate_path);
  const bool have_key = fs::exists(pair.key_path);
  if (have_certificate && !have_key) {
    fail(quoted(pair.certificate_path) + " exists but its private key " + quoted(pair.key_path) +
         " is missing; restore the key, or delete the certificate to generate a new pair");
  }

  if (have_key) {
    pair.key = read_private_key_file(pair.key_path);
  } else {
    pair.key = generate_ecdsa_p256_key();
    write_file_atomically(pair.key_path, private_key_to_pem(pair.key.get()), kPrivateFileMode);
  }

  if (have_certificate) {
    pair.certificate = read_certificate_file(pair.certificate_path);
    if (X509_check_private_key(pair.certificate.get(), pair.key.get()) != 1) {
      fail(quoted(pair.key_path) + " is not the private key of " + quoted(pair.certificate_path) +
           "; delete both to generate a new pair");
    }
  } else {
    pair.certificate = issue(pair.key.get());
    write_file_atomically(pair.certificate_path, certificate_to_pem(pair.certificate.get()), kPublicFileMode);
  }
  return pair;
}

CertificateAndKey ensure_certificate_authority(const fs::path& dir, const std::string& base_name,
                                               const std::string& common_name) {
  const CertificateRequest request{
      .common_name = common_name,
      .organizations = {},
      .usage = CertificateUsage::certificate_authority,
      .validity_days = kCaValidityDays,
      .subject_alt_names = {},
  };
  return ensure_certificate_and_key(
      dir, base_name, [&](EVP_PKEY* key) { return self_sign_certificate_authority(request, key); });
}

// An existing leaf must still chain to the CA in use: after someone deletes and regenerates ca.*, old leaves would
// otherwise be served and fail every client's verification with a far less helpful message.
CertificateAndKey ensure_leaf(const fs::path& dir, const std::string& base_name, const CertificateRequest& request,
                              const CertificateAndKey& ca) {
  CertificateAndKey leaf = ensure_certificate_and_key(
      dir, base_name, [&](EVP_PKEY* key) { return issue_certificate(request, key, ca.as_issuer()); });
  if (X509_check_issued(ca.certificate.get(), leaf.certificate.get()) != X509_V_OK ||
      X509_verify(leaf.certificate.get(), X509_get0_pubkey(ca.certificate.get())) != 1) {
    fail(quoted(leaf.certificate_path) + " is not signed by " + quoted(ca.certificate_path) + "; delete " +
         quoted(leaf.certificate_path) + " and " + quoted(leaf.key_path) + " to issue a new one");
  }
  return leaf;
}

std::string strip_brackets(std::string_view host) {
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  return std::string(host);
}

std::optional<SubjectAltName> local_hostname() {
  const std::string name = base::hostname();
  if (name.empty()) return std::nullopt;
  try {
    return parse_subject_alt_name(name);
  } catch (const std::invalid_argument&) {
    return std::nullopt;  // an odd hostname is not worth refusing to start over
  }
}

std::vector<SubjectAltName> serving_alt_names(const PkiOptions& options) {
  std::vector<SubjectAltName> names;
  auto add = [&](const SubjectAltName& name) {
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  };
  add(parse_subject_alt_name("localhost"));
  if (auto hostname = local_hostname()) add(*hostname);
  // The names in-cluster clients use for the `kubernetes` service.
  for (const char* service_name : {"kubernetes", "kubernetes.default", "kubernetes.default.svc",
                                   "kubernetes.default.svc.cluster.local"}) {
    add(parse_subject_alt_name(service_name));
  }
  add(parse_subject_alt_name("127.0.0.1"));
  add(parse_subject_alt_name("::1"));
  try {
    add(parse_subject_alt_name(strip_brackets(options.advertise_host)));
    for (const auto& extra : options.extra_sans) add(parse_subject_alt_name(extra));
  } catch (const std::invalid_argument& error) {
    fail(error.what());
  }
  // DNS names first, then addresses, each group in the order given: how openssl and kubectl users expect to read them.
  std::stable_partition(names.begin(), names.end(),
                        [](const SubjectAltName& name) { return name.kind == SubjectAltName::Kind::dns; });
  return names;
}

void check_user_serving_pair(const fs::path& certificate_path, const fs::path& key_path) {
  const X509Ptr certificate = read_certificate_file(certificate_path);
  const EvpPkeyPtr key = read_private_key_file(key_path);
  if (X509_check_private_key(certificate.get(), key.get()) != 1) {
    fail("--tls-private-key-file " + quoted(key_path) + " is not the private key of --tls-cert-file " +
         quoted(certificate_path));
  }
}

void ensure_service_account_keys(const fs::path& key_path, const fs::path& public_key_path) {
  const bool have_key = fs::exists(key_path);
  const bool have_public_key = fs::exists(public_key_path);
  if (have_public_key && !have_key) {
    fail(quoted(public_key_path) + " exists but its private key " + quoted(key_path) +
         " is missing; restore the key, or delete the public key to generate a new pair (tokens signed by the old "
         "key will stop validating)");
  }

  EvpPkeyPtr key;
  if (have_key) {
    key = read_private_key_file(key_path);
  } else {
    key = generate_rsa_key(kServiceAccountKeyBits);
    write_file_atomically(key_path, private_key_to_pem(key.get()), kPrivateFileMode);
  }

  if (have_public_key) {
    const EvpPkeyPtr public_key = parse_public_key_pem(read_file(public_key_path), public_key_path.string());
    if (EVP_PKEY_eq(public_key.get(), key.get()) != 1) {
      fail(quoted(public_key_path) + " is not the public half of " + quoted(key_path) + "; delete it to derive it again");
    }
  } else {
    write_file_atomically(public_key_path, public_key_to_pem(key.get()), kPublicFileMode);
  }
}

void write_if_changed(const fs::path& path, const std::string& contents, mode_t mode) {
  if (fs::exists(path) && read_file(path) == contents) return;
  write_file_atomically(path, contents, mode);
}

}  // namespace

std::string https_url(std::string_view host, uint16_t port) {
  std::string bare = strip_brackets(host);
  const std::string authority = bare.find(':') != std::string::npos ? "[" + bare + "]" : bare;
  return "https://" + authority + ":" + std::to_string(port);
}

PkiMaterial ensure_pki(const PkiOptions& options) {
  if (options.cert_dir.empty()) fail("no certificate directory given");
  if (options.tls_cert_file.has_value() != options.tls_private_key_file.has_value()) {
    fail("--tls-cert-file and --tls-private-key-file must be given together");
  }
  const fs::path& dir = options.cert_dir;
  fs::create_directories(dir);

  PkiMaterial material;
  const bool generate_serving = !options.tls_cert_file.has_value();
  const bool generate_client_ca = !options.client_ca_file.has_value();

  std::optional<CertificateAndKey> ca;
  if (generate_serving || generate_client_ca) {
    ca = ensure_certificate_authority(dir, "ca", "kapi-ca");
    material.ca_cert = ca->certificate_path;
  }

  // What admin.kubeconfig trusts. For a caller's serving certificate that is the certificate (chain) itself: Go's
  // verifier accepts any certificate in the roots as an anchor, and kapi does not know the caller's root.
  fs::path server_trust;
  if (generate_serving) {
    const CertificateRequest request{
        .common_name = "kapi-apiserver",
        .organizations = {},
        .usage = CertificateUsage::server_auth,
        .validity_days = kLeafValidityDays,
        .subject_alt_names = serving_alt_names(options),
    };
    const CertificateAndKey serving = ensure_leaf(dir, "apiserver", request, *ca);
    material.serving_cert = serving.certificate_path;
    material.serving_key = serving.key_path;
    server_trust = ca->certificate_path;
  } else {
    check_user_serving_pair(*options.tls_cert_file, *options.tls_private_key_file);
    material.serving_cert = *options.tls_cert_file;
    material.serving_key = *options.tls_private_key_file;
    server_trust = *options.tls_cert_file;
  }

  if (generate_client_ca) {
    material.client_ca = ca->certificate_path;
    const CertificateRequest request{
        .common_name = "kapi-admin",
        .organizations = {"system:masters"},
        .usage = CertificateUsage::client_auth,
        .validity_days = kLeafValidityDays,
        .subject_alt_names = {},
    };
    const CertificateAndKey admin = ensure_leaf(dir, "admin", request, *ca);
    material.admin_cert = admin.certificate_path;
    material.admin_key = admin.key_path;
    material.admin_kubeconfig = dir / "admin.kubeconfig";
    write_if_changed(material.admin_kubeconfig,
                     render_kubeconfig(https_url(options.advertise_host, options.secure_port), read_file(server_trust),
                                       read_file(admin.certificate_path), read_file(admin.key_path)),
                     kPrivateFileMode);
  } else {
    read_certificate_file(*options.client_ca_file);  // fail now, naming the flag's file, rather than at first handshake
    material.client_ca = *options.client_ca_file;
  }

  const CertificateAndKey front_proxy_ca = ensure_certificate_authority(dir, "front-proxy-ca", "front-proxy-ca");
  const CertificateRequest front_proxy_client_request{
      .common_name = "front-proxy-client",
      .organizations = {},
      .usage = CertificateUsage::client_auth,
      .validity_days = kLeafValidityDays,
      .subject_alt_names = {},
  };
  const CertificateAndKey front_proxy_client =
      ensure_leaf(dir, "front-proxy-client", front_proxy_client_request, front_proxy_ca);
  material.front_proxy_ca = front_proxy_ca.certificate_path;
  material.front_proxy_client_cert = front_proxy_client.certificate_path;
  material.front_proxy_client_key = front_proxy_client.key_path;

  material.service_account_key = dir / "sa.key";
  material.service_account_pub = dir / "sa.pub";
  ensure_service_account_keys(material.service_account_key, material.service_account_pub);
  return material;
}

}  // namespace kapi::pki
