// Encryption at rest's value layer: the ciphers read what kube-apiserver's (Go's crypto/aes and nacl/secretbox)
// write, byte for byte; the prefix transformers choose, rotate and report staleness as kube's value package does;
// and TransformingStorage rewrites a stale object on an unchanged update, as kube's GuaranteedUpdate does.
#include "storage/embedded/store.h"
#include "storage/transforming_storage.h"
#include "storage/value/transformer.h"
#include "tests/support/io_thread.h"
#include "tests/support/temp_dir.h"

#include <gtest/gtest.h>

namespace kapi::storage::value::value_transformer_test {
namespace {

std::string unhex(std::string_view hex) {
  std::string bytes;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2)
    bytes += static_cast<char>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16));
  return bytes;
}

std::string counting_key() {  // 0x00, 0x01, ... 0x1f
  std::string key;
  for (int i = 0; i < 32; ++i) key += static_cast<char>(i);
  return key;
}

constexpr std::string_view kPlain = R"({"kind":"Secret","apiVersion":"v1","data":{"a":"Yg=="}})";
constexpr std::string_view kKey = "/registry/secrets/default/s";

std::string error_of(const Transformer& transformer, std::string_view stored, std::string_view key = kKey) {
  try {
    transformer.from_storage(stored, key);
  } catch (const TransformError& error) {
    return error.what();
  }
  return "no error";
}

// Written by Python's cryptography (OpenSSL) with a fixed IV, as Go's cipher.NewCBCEncrypter writes with a random one.
TEST(ValueTransformerTest, AesCbcReadsKubesLayout) {
  const std::string stored = unhex(
      "6465666768696a6b6c6d6e6f7071727344283a8a80a45cba29966b60a5c5bdab29df94c4e216912e2dd214420707bf0dd708112ee7542f"
      "8006acd6cc870971f0f54f54c46b18a627b8852ab4df3756ed");
  EXPECT_EQ(aes_cbc_transformer(counting_key())->from_storage(stored, kKey).value, kPlain);
}

// Nonce, ciphertext, tag; the object's key is the additional authenticated data, as kube's etcd3 store passes it.
TEST(ValueTransformerTest, AesGcmReadsKubesLayoutAndAuthenticatesTheKey) {
  const std::string stored = unhex(
      "c8c9cacbcccdcecfd0d1d2d36a5a0ab2e8a8d91a566f7add6c639f36cca58dd86d3dcd569ec0548ff8ab899ffdae0684f67e5ecb10c53f8"
      "5d1353bc286d62685a6708aac79b51a82d1290500998c87459edee8");
  const auto gcm = aes_gcm_transformer(counting_key());
  EXPECT_EQ(gcm->from_storage(stored, kKey).value, kPlain);
  EXPECT_EQ(error_of(*gcm, stored, "/registry/secrets/default/other"), "cipher: message authentication failed");
}

// golang.org/x/crypto/nacl/secretbox's own test vector (made with NaCl's C implementation), behind its nonce.
TEST(ValueTransformerTest, SecretboxReadsNaclsVector) {
  const std::string stored =
      std::string(24, '\x02') +
      unhex("8442bc313f4626f1359e3b50122b6ce6fe66ddfe7d39d14e637eb4fd5b45beadab55198df6ab5368439792a23c87db70acb6156dc5"
            "ef957ac04f6276cf6093b84be77ff0849cc33e34b7254d5a8f65ad");
  EXPECT_EQ(secretbox_transformer(std::string(32, '\x01'))->from_storage(stored, kKey).value, std::string(64, '\x03'));
}

TEST(ValueTransformerTest, EachCipherRoundTripsWithAFreshIv) {
  for (const auto& cipher : {aes_cbc_transformer(std::string(16, 'k')), aes_cbc_transformer(std::string(24, 'k')),
                             aes_gcm_transformer(std::string(32, 'k')), secretbox_transformer(std::string(32, 'k'))}) {
    for (std::string_view plain : {std::string_view(), std::string_view("x"), kPlain}) {
      const std::string once = cipher->to_storage(plain, kKey);
      const std::string twice = cipher->to_storage(plain, kKey);
      EXPECT_NE(once, twice) << "a fresh IV or nonce each time";
      EXPECT_EQ(cipher->from_storage(once, kKey).value, plain);
      EXPECT_FALSE(cipher->from_storage(once, kKey).stale);
    }
  }
}

TEST(ValueTransformerTest, DamagedValuesFailWithKubesErrors) {
  const auto cbc = aes_cbc_transformer(std::string(32, 'k'));
  EXPECT_EQ(error_of(*cbc, "short"), "the stored data was shorter than the required size");
  EXPECT_EQ(error_of(*cbc, std::string(16 + 5, 'x')), "the stored data is not a multiple of the block size");
  const std::string other_key = aes_cbc_transformer(std::string(32, 'o'))->to_storage(kPlain, kKey);
  const std::string read = error_of(*cbc, other_key);
  EXPECT_TRUE(read == "invalid padding on input" || read == "invalid PKCS7 data (empty or not padded)") << read;
  EXPECT_EQ(error_of(*aes_gcm_transformer(std::string(16, 'k')), "short"),
            "the stored data was shorter than the required size");
  const auto box = secretbox_transformer(std::string(32, 'k'));
  EXPECT_EQ(error_of(*box, std::string(39, 'x')), "the stored data was shorter than the required size");
  EXPECT_EQ(error_of(*box, secretbox_transformer(std::string(32, 'o'))->to_storage(kPlain, kKey)),
            "attempted to decrypt an invalid ciphertext");
  EXPECT_THROW(aes_cbc_transformer("too short"), std::invalid_argument);
}

// Two aescbc providers, the new key first, then identity: encryptionconfig's shape for a key rotation.
std::shared_ptr<const Transformer> rotating(const std::string& first, const std::string& second) {
  auto keys = [](const std::string& name, const std::string& key) {
    return prefix_transformers({{name + ":", aes_cbc_transformer(key)}},
                               "no matching key was found for the provided AES transformer");
  };
  return prefix_transformers({{"k8s:enc:aescbc:v1:", keys("new", first)},
                              {"k8s:enc:aescbc:v1:", keys("old", second)},
                              {"", identity_transformer()}});
}

TEST(ValueTransformerTest, PrefixTransformersWriteWithTheFirstAndReadWithAny) {
  const auto config = rotating(std::string(32, 'n'), std::string(32, 'o'));
  const std::string written = config->to_storage(kPlain, kKey);
  EXPECT_TRUE(written.starts_with("k8s:enc:aescbc:v1:new:")) << written.substr(0, 30);
  EXPECT_FALSE(config->from_storage(written, kKey).stale);

  // The old key's value, by a config that lists it second: read, and stale.
  const std::string old = rotating(std::string(32, 'o'), std::string(32, 'x'))->to_storage(kPlain, kKey);
  ASSERT_TRUE(old.starts_with("k8s:enc:aescbc:v1:new:"));
  const std::string by_old_name = "k8s:enc:aescbc:v1:old:" + old.substr(std::string("k8s:enc:aescbc:v1:new:").size());
  const FromStorage read = config->from_storage(by_old_name, kKey);
  EXPECT_EQ(read.value, kPlain);
  EXPECT_TRUE(read.stale);

  // Plain JSON, written before encryption was configured: identity reads it, and it is stale.
  const FromStorage plain = config->from_storage(kPlain, kKey);
  EXPECT_EQ(plain.value, kPlain);
  EXPECT_TRUE(plain.stale);
}

TEST(ValueTransformerTest, IdentityFirstWritesPlainAndStillReadsEncryptedValues) {
  const std::string encrypted = rotating(std::string(32, 'n'), std::string(32, 'o'))->to_storage(kPlain, kKey);
  const auto decrypting = prefix_transformers(
      {{"", identity_transformer()},
       {"k8s:enc:aescbc:v1:", prefix_transformers({{"new:", aes_cbc_transformer(std::string(32, 'n'))}})}});
  EXPECT_EQ(decrypting->to_storage(kPlain, kKey), kPlain);
  const FromStorage read = decrypting->from_storage(encrypted, kKey);
  EXPECT_EQ(read.value, kPlain);
  EXPECT_TRUE(read.stale) << "rewritten as plain text by the next update";
}

TEST(ValueTransformerTest, AValueNoProviderReadsFailsWithTheirErrors) {
  const auto only_aes = prefix_transformers(
      {{"k8s:enc:aescbc:v1:", prefix_transformers({{"new:", aes_cbc_transformer(std::string(32, 'n'))}},
                                                  "no matching key was found for the provided AES transformer")}});
  EXPECT_EQ(error_of(*only_aes, kPlain), "no matching prefix found");
  EXPECT_EQ(error_of(*only_aes, "k8s:enc:aescbc:v1:gone:0000"),
            "no matching key was found for the provided AES transformer");
  EXPECT_EQ(error_of(*identity_transformer(), "k8s:enc:aescbc:v1:new:0000"),
            "identity transformer tried to read encrypted data");
}

class TransformingStorageTest : public ::testing::Test {
 protected:
  TransformingStorageTest() {
    embedded::Options options;
    options.data_dir = dir_.path() / "data";
    store_ = embedded::Store::open(std::move(options));
  }

  template <typename T>
  T run(asio::awaitable<T> task) {
    return io_.run(std::move(task));
  }
  KeyValue update(Interface& storage, std::string value) {
    return run(storage.guaranteed_update(
        std::string(kKey), false, nullptr, [value](const KeyValue*) { return std::optional<std::string>(value); }, {}));
  }
  std::string raw() { return run(store_->get(std::string(kKey), {}))->value; }

  test_support::TempDir dir_{"kapi-transforming"};
  test_support::IoThread io_;
  std::unique_ptr<embedded::Store> store_;
};

TEST_F(TransformingStorageTest, AnUnchangedUpdateWritesOnlyAStaleValue) {
  TransformingStorage old_key(*store_, rotating(std::string(32, 'o'), std::string(32, 'x')));
  const KeyValue created = run(old_key.create(std::string(kKey), std::string(kPlain), {}));
  EXPECT_EQ(created.value, kPlain);
  EXPECT_TRUE(raw().starts_with("k8s:enc:aescbc:v1:new:"));

  // Same key first: the unchanged update writes nothing.
  EXPECT_EQ(update(old_key, std::string(kPlain)).mod_revision, created.mod_revision);

  // Another server's key first and this one as "old": the value is stale, so the same update rewrites it.
  const std::string before = raw();
  auto rotated_keys = prefix_transformers({{"k8s:enc:aescbc:v1:", prefix_transformers({
                                               {"newer:", aes_cbc_transformer(std::string(32, 'n'))},
                                               {"new:", aes_cbc_transformer(std::string(32, 'o'))},
                                           })}});
  TransformingStorage new_key(*store_, rotated_keys);
  const KeyValue rewritten = update(new_key, std::string(kPlain));
  EXPECT_GT(rewritten.mod_revision, created.mod_revision);
  EXPECT_EQ(rewritten.value, kPlain);
  EXPECT_TRUE(raw().starts_with("k8s:enc:aescbc:v1:newer:")) << raw().substr(0, 30);
  EXPECT_EQ(update(new_key, std::string(kPlain)).mod_revision, rewritten.mod_revision) << "no longer stale";
}

TEST_F(TransformingStorageTest, AValueThatCannotBeReadIsKubesInternalError) {
  run(store_->create(std::string(kKey), "k8s:enc:aescbc:v1:gone:00000000000000000000000000000000", {}));
  TransformingStorage storage(*store_, rotating(std::string(32, 'n'), std::string(32, 'o')));
  try {
    run(storage.get(std::string(kKey), {}));
    FAIL() << "read";
  } catch (const StorageError& error) {
    EXPECT_EQ(error.code(), ErrorCode::Internal);
    EXPECT_EQ(std::string(error.what()),
              "unable to transform key \"/registry/secrets/default/s\": [no matching key was found for the provided "
              "AES transformer, no matching key was found for the provided AES transformer, identity transformer "
              "tried to read encrypted data]");
  }
}

}  // namespace
}  // namespace kapi::storage::value::value_transformer_test
