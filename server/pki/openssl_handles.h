#pragma once

// Owning handles for the OpenSSL objects kapi's PKI code touches, so every early return and exception frees them.

#include <memory>
#include <string_view>

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/evp.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

namespace kapi::pki {

template <auto FreeFunction>
struct OpenSslDeleter {
  template <typename T>
  void operator()(T* object) const noexcept {
    FreeFunction(object);
  }
};

using X509Ptr = std::unique_ptr<X509, OpenSslDeleter<&X509_free>>;
using X509NamePtr = std::unique_ptr<X509_NAME, OpenSslDeleter<&X509_NAME_free>>;
using X509ExtensionPtr = std::unique_ptr<X509_EXTENSION, OpenSslDeleter<&X509_EXTENSION_free>>;
using X509StorePtr = std::unique_ptr<X509_STORE, OpenSslDeleter<&X509_STORE_free>>;
using X509StoreContextPtr = std::unique_ptr<X509_STORE_CTX, OpenSslDeleter<&X509_STORE_CTX_free>>;
using EvpPkeyPtr = std::unique_ptr<EVP_PKEY, OpenSslDeleter<&EVP_PKEY_free>>;
using BioPtr = std::unique_ptr<BIO, OpenSslDeleter<&BIO_free_all>>;
using BignumPtr = std::unique_ptr<BIGNUM, OpenSslDeleter<&BN_free>>;
using GeneralNamePtr = std::unique_ptr<GENERAL_NAME, OpenSslDeleter<&GENERAL_NAME_free>>;
using GeneralNamesPtr = std::unique_ptr<GENERAL_NAMES, OpenSslDeleter<&GENERAL_NAMES_free>>;
using ExtendedKeyUsagePtr = std::unique_ptr<EXTENDED_KEY_USAGE, OpenSslDeleter<&EXTENDED_KEY_USAGE_free>>;
using Asn1OctetStringPtr = std::unique_ptr<ASN1_OCTET_STRING, OpenSslDeleter<&ASN1_OCTET_STRING_free>>;

// Throws std::runtime_error("<what>: <OpenSSL's queued reasons>") and empties this thread's error queue, so a later,
// unrelated failure does not report stale reasons.
[[noreturn]] void throw_openssl_error(std::string_view what);

}  // namespace kapi::pki
