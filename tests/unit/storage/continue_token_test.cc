// The continue token must be byte-identical to kube-apiserver's (storage/continue.go) and reject what it rejects.
#include "storage/continue_token.h"

#include <gtest/gtest.h>

namespace kapi::storage::continue_token_test {
namespace {

std::string base64_url(std::string_view json) {
  // Independent of the codec under test: the tokens below were produced by Go's base64.RawURLEncoding.
  static constexpr std::string_view alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string out;
  unsigned bits = 0;
  int count = 0;
  for (unsigned char c : json) {
    bits = (bits << 8) | c;
    count += 8;
    while (count >= 6) {
      out += alphabet[(bits >> (count - 6)) & 0x3f];
      count -= 6;
    }
  }
  if (count > 0) out += alphabet[(bits << (6 - count)) & 0x3f];
  return out;
}

std::string decode_error(std::string_view token) {
  try {
    decode_continue(token, "/registry/pods/");
  } catch (const InvalidContinueToken& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST(ContinueToken, EncodesLikeKubeApiserver) {
  EXPECT_EQ(encode_continue("/registry/pods/foo", "/registry/pods/", 5),
            "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6NSwic3RhcnQiOiJmb28ifQ");
  // Go's encoding/json escapes control characters and, HTML-safe, <, > and &.
  EXPECT_EQ(encode_continue(std::string("/p/a\0<b>&", 9), "/p/", -1),
            "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6LTEsInN0YXJ0IjoiYVx1MDAwMFx1MDAzY2JcdTAwM2VcdTAwMjYifQ");
  EXPECT_EQ(encode_continue("/p/\xe2\x80\xa8\xff", "/p/", 1),
            base64_url(R"({"v":"meta.k8s.io/v1","rv":1,"start":"\u2028\ufffd"})"));
  EXPECT_THROW(encode_continue("/other/foo", "/registry/pods/", 1), std::invalid_argument);
}

TEST(ContinueToken, DecodesToTheFullKeyAndRevision) {
  const std::string last = std::string("/registry/pods/ns/name") + '\0';
  const ContinuePosition position = decode_continue(encode_continue(last, "/registry/pods/", 42), "/registry/pods/");
  EXPECT_EQ(position.start_key, last);
  EXPECT_EQ(position.revision, 42);
  EXPECT_EQ(decode_continue(encode_continue("/registry/pods/x", "/registry/pods/", -1), "/registry/pods/").revision,
            -1);
  // json.Unmarshal matches field names case-insensitively and ignores unknown fields.
  const auto loose = decode_continue(base64_url(R"({"V":"meta.k8s.io/v1","RV":3,"Start":"/x","extra":true})"),
                                     "/registry/pods/");
  EXPECT_EQ(loose.start_key, "/registry/pods/x");
  EXPECT_EQ(loose.revision, 3);
}

TEST(ContinueToken, RejectsWhatKubeRejects) {
  EXPECT_EQ(decode_error("!!!!"), "continue key is not valid: illegal base64 data at input byte 0");
  EXPECT_EQ(decode_error("eyJ2Ijo="), "continue key is not valid: illegal base64 data at input byte 7");
  EXPECT_EQ(decode_error(base64_url("[1]")),
            "continue key is not valid: json: cannot unmarshal array into Go value of type storage.continueToken");
  EXPECT_EQ(decode_error(base64_url(R"({"v":"meta.k8s.io/v2","rv":1,"start":"a"})")),
            "continue key is not valid: server does not recognize this encoded version meta.k8s.io/v2");
  EXPECT_EQ(decode_error(base64_url(R"({"v":"meta.k8s.io/v1","rv":0,"start":"a"})")),
            "continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)");
  EXPECT_EQ(decode_error(base64_url(R"({"v":"meta.k8s.io/v1","rv":1,"start":""})")),
            "continue key is not valid: encoded start key empty (version meta.k8s.io/v1)");
  EXPECT_EQ(decode_error(base64_url(R"({"v":"meta.k8s.io/v1","rv":"1","start":"a"})")),
            "continue key is not valid: json: cannot unmarshal string into Go struct field continueToken.rv of type "
            "int64");
  // Path traversal: a start key that is not already clean could reach above the list prefix.
  EXPECT_EQ(decode_error(base64_url(R"({"v":"meta.k8s.io/v1","rv":1,"start":"../secrets/x"})")),
            "continue key is not valid: ../secrets/x");
  EXPECT_EQ(decode_error(base64_url(R"({"v":"meta.k8s.io/v1","rv":1,"start":"a//b"})")),
            "continue key is not valid: a//b");
  EXPECT_NE(decode_error(base64_url("not json")).find("continue key is not valid: "), std::string::npos);
}

TEST(ContinueToken, CleanPathMatchesGo) {
  // Cases from Go's path/path_test.go.
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", "."}, {"abc", "abc"}, {"abc/def", "abc/def"}, {".", "."}, {"..", ".."}, {"../..", "../.."},
      {"../../abc", "../../abc"}, {"/abc", "/abc"}, {"/", "/"}, {"abc/", "abc"}, {"//abc", "/abc"},
      {"abc//def//ghi", "abc/def/ghi"}, {"abc/./def", "abc/def"}, {"/./abc/def", "/abc/def"}, {"abc/.", "abc"},
      {"abc/def/ghi/../jkl", "abc/def/jkl"}, {"abc/def/../ghi/../jkl", "abc/jkl"}, {"abc/def/..", "abc"},
      {"abc/def/../..", "."}, {"/abc/def/../..", "/"}, {"abc/def/../../..", ".."}, {"/abc/def/../../..", "/"},
      {"abc/def/../../../ghi/jkl/../../../mno", "../../mno"}, {"abc/./../def", "def"}, {"abc//./../def", "def"},
      {"abc/../../././../def", "../../def"}};
  for (const auto& [in, out] : cases) EXPECT_EQ(clean_path(in), out) << in;
}

}  // namespace
}  // namespace kapi::storage::continue_token_test
