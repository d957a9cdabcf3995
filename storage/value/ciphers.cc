// The ciphers of k8s.io/apiserver/pkg/storage/value/encrypt: aes (CBC with PKCS#7 padding, GCM) on OpenSSL and
// secretbox (XSalsa20-Poly1305, as golang.org/x/crypto/nacl/secretbox) on libsodium. Each stores a fresh random
// IV or nonce before the ciphertext, byte for byte as kube-apiserver does, so either server reads the other's data.
#include "storage/value/transformer.h"

#include <openssl/evp.h>
#include <openssl/rand.h>
#include <sodium.h>

#include <memory>

namespace kapi::storage::value {
namespace {

constexpr std::size_t kAesBlock = 16;
constexpr std::size_t kGcmNonce = 12;
constexpr std::size_t kGcmTag = 16;
constexpr std::string_view kShortData = "the stored data was shorter than the required size";

using CipherContext = std::unique_ptr<EVP_CIPHER_CTX, decltype(&EVP_CIPHER_CTX_free)>;

CipherContext new_context() {
  CipherContext context(EVP_CIPHER_CTX_new(), &EVP_CIPHER_CTX_free);
  if (!context) throw std::bad_alloc();
  return context;
}

std::string random_bytes(std::size_t size) {
  std::string bytes(size, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(bytes.data()), static_cast<int>(size)) != 1)
    throw std::runtime_error("no random bytes for an encryption IV");
  return bytes;
}

const unsigned char* bytes_of(std::string_view text) { return reinterpret_cast<const unsigned char*>(text.data()); }
unsigned char* bytes_of(std::string& text) { return reinterpret_cast<unsigned char*>(text.data()); }

void check(int openssl_result) {
  if (openssl_result != 1) throw std::runtime_error("OpenSSL cipher failure");
}

// One pass of `cipher` over `in`, padding off: CBC's padding is kube's own, checked with kube's errors.
std::string crypt(const EVP_CIPHER* cipher, std::string_view key, std::string_view iv, std::string_view in,
                  bool encrypt) {
  CipherContext context = new_context();
  check(EVP_CipherInit_ex(context.get(), cipher, nullptr, bytes_of(key), bytes_of(iv), encrypt ? 1 : 0));
  check(EVP_CIPHER_CTX_set_padding(context.get(), 0));
  std::string out(in.size(), '\0');
  int written = 0;
  check(EVP_CipherUpdate(context.get(), bytes_of(out), &written, bytes_of(in), static_cast<int>(in.size())));
  int last = 0;
  check(EVP_CipherFinal_ex(context.get(), bytes_of(out) + written, &last));
  return out;
}

class AesCbc final : public Transformer {
 public:
  explicit AesCbc(std::string key) : key_(std::move(key)), cipher_(cbc_for(key_.size())) {}

  std::string to_storage(std::string_view value, std::string_view) const override {
    std::string padded(value);
    const std::size_t padding = kAesBlock - value.size() % kAesBlock;
    padded.append(padding, static_cast<char>(padding));
    std::string iv = random_bytes(kAesBlock);
    return iv + crypt(cipher_, key_, iv, padded, true);
  }

  FromStorage from_storage(std::string_view stored, std::string_view) const override {
    if (stored.size() < kAesBlock) throw TransformError(std::string(kShortData));
    const std::string_view iv = stored.substr(0, kAesBlock);
    const std::string_view data = stored.substr(kAesBlock);
    if (data.size() % kAesBlock != 0) throw TransformError("the stored data is not a multiple of the block size");
    std::string plain = crypt(cipher_, key_, iv, data, false);
    const std::size_t padding = plain.empty() ? 0 : static_cast<unsigned char>(plain.back());
    if (padding == 0 || padding > plain.size()) throw TransformError("invalid PKCS7 data (empty or not padded)");
    for (std::size_t i = plain.size() - padding; i < plain.size(); ++i)
      if (static_cast<unsigned char>(plain[i]) != padding) throw TransformError("invalid padding on input");
    plain.resize(plain.size() - padding);
    return {std::move(plain), false};
  }

 private:
  static const EVP_CIPHER* cbc_for(std::size_t size) {
    if (size == 16) return EVP_aes_128_cbc();
    if (size == 24) return EVP_aes_192_cbc();
    if (size == 32) return EVP_aes_256_cbc();
    throw std::invalid_argument("crypto/aes: invalid key size " + std::to_string(size));
  }

  std::string key_;
  const EVP_CIPHER* cipher_;
};

class AesGcm final : public Transformer {
 public:
  explicit AesGcm(std::string key) : key_(std::move(key)), cipher_(gcm_for(key_.size())) {}

  // nonce, ciphertext, tag: Go's gcm.Seal(nonce, nonce, data, key).
  std::string to_storage(std::string_view value, std::string_view key) const override {
    std::string out = random_bytes(kGcmNonce);
    CipherContext context = new_context();
    check(EVP_EncryptInit_ex(context.get(), cipher_, nullptr, bytes_of(key_), bytes_of(std::string_view(out))));
    int written = 0;
    check(EVP_EncryptUpdate(context.get(), nullptr, &written, bytes_of(key), static_cast<int>(key.size())));
    out.resize(kGcmNonce + value.size() + kGcmTag);
    check(EVP_EncryptUpdate(context.get(), bytes_of(out) + kGcmNonce, &written, bytes_of(value),
                            static_cast<int>(value.size())));
    int last = 0;
    check(EVP_EncryptFinal_ex(context.get(), bytes_of(out) + kGcmNonce + written, &last));
    check(EVP_CIPHER_CTX_ctrl(context.get(), EVP_CTRL_GCM_GET_TAG, kGcmTag, bytes_of(out) + kGcmNonce + value.size()));
    return out;
  }

  FromStorage from_storage(std::string_view stored, std::string_view key) const override {
    if (stored.size() < kGcmNonce) throw TransformError(std::string(kShortData));
    if (stored.size() < kGcmNonce + kGcmTag) throw TransformError("cipher: message authentication failed");
    const std::string_view data = stored.substr(kGcmNonce, stored.size() - kGcmNonce - kGcmTag);
    std::string tag(stored.substr(stored.size() - kGcmTag));
    CipherContext context = new_context();
    check(EVP_DecryptInit_ex(context.get(), cipher_, nullptr, bytes_of(key_), bytes_of(stored)));
    int written = 0;
    check(EVP_DecryptUpdate(context.get(), nullptr, &written, bytes_of(key), static_cast<int>(key.size())));
    std::string plain(data.size(), '\0');
    check(EVP_DecryptUpdate(context.get(), bytes_of(plain), &written, bytes_of(data), static_cast<int>(data.size())));
    check(EVP_CIPHER_CTX_ctrl(context.get(), EVP_CTRL_GCM_SET_TAG, kGcmTag, bytes_of(tag)));
    int last = 0;
    if (EVP_DecryptFinal_ex(context.get(), bytes_of(plain) + written, &last) != 1)
      throw TransformError("cipher: message authentication failed");
    return {std::move(plain), false};
  }

 private:
  static const EVP_CIPHER* gcm_for(std::size_t size) {
    if (size == 16) return EVP_aes_128_gcm();
    if (size == 24) return EVP_aes_192_gcm();
    if (size == 32) return EVP_aes_256_gcm();
    throw std::invalid_argument("crypto/aes: invalid key size " + std::to_string(size));
  }

  std::string key_;
  const EVP_CIPHER* cipher_;
};

class Secretbox final : public Transformer {
 public:
  explicit Secretbox(std::string key) : key_(std::move(key)) {
    if (key_.size() != crypto_secretbox_KEYBYTES)
      throw std::invalid_argument("secretbox: the key must be " + std::to_string(crypto_secretbox_KEYBYTES) + " bytes");
    if (sodium_init() < 0) throw std::runtime_error("libsodium could not be initialised");
  }

  // nonce, then secretbox.Seal's tag and ciphertext (libsodium's "easy" form is the same bytes).
  std::string to_storage(std::string_view value, std::string_view) const override {
    std::string out(crypto_secretbox_NONCEBYTES + crypto_secretbox_MACBYTES + value.size(), '\0');
    randombytes_buf(out.data(), crypto_secretbox_NONCEBYTES);
    crypto_secretbox_easy(bytes_of(out) + crypto_secretbox_NONCEBYTES, bytes_of(value), value.size(), bytes_of(out),
                          bytes_of(key_));
    return out;
  }

  FromStorage from_storage(std::string_view stored, std::string_view) const override {
    if (stored.size() < crypto_secretbox_NONCEBYTES + crypto_secretbox_MACBYTES)
      throw TransformError(std::string(kShortData));
    const std::string_view sealed = stored.substr(crypto_secretbox_NONCEBYTES);
    std::string plain(sealed.size() - crypto_secretbox_MACBYTES, '\0');
    if (crypto_secretbox_open_easy(bytes_of(plain), bytes_of(sealed), sealed.size(), bytes_of(stored),
                                   bytes_of(key_)) != 0)
      throw TransformError("attempted to decrypt an invalid ciphertext");
    return {std::move(plain), false};
  }

 private:
  std::string key_;
};

}  // namespace

std::shared_ptr<const Transformer> aes_cbc_transformer(std::string key) {
  return std::make_shared<AesCbc>(std::move(key));
}
std::shared_ptr<const Transformer> aes_gcm_transformer(std::string key) {
  return std::make_shared<AesGcm>(std::move(key));
}
std::shared_ptr<const Transformer> secretbox_transformer(std::string key) {
  return std::make_shared<Secretbox>(std::move(key));
}

}  // namespace kapi::storage::value
