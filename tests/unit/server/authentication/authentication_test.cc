// Request authentication as kube-apiserver builds it: the token file's CSV and its errors, bearer token parsing,
// and how certificates, tokens and anonymous requests combine (a bad credential is never anonymous).
#include "server/authentication/request_authenticator.h"
#include "server/authentication/bearer_token.h"
#include "server/authentication/token_file.h"
#include "server/authentication/x509.h"
#include "tests/support/temp_dir.h"
#include "tests/unit/support/recording_writer.h"

#include <gtest/gtest.h>

#include <fstream>

namespace kapi::authentication::authentication_test {
namespace {

using test_support::make_request;
using test_support::run_sync;
using Outcome = Result::Outcome;
using Strings = std::vector<std::string>;

TEST(TokenFileCsv, ReadsRecordsAsGosCsvReader) {
  EXPECT_EQ(read_csv("a,b,c\n\nd,\"e,f\",\"g \"\"h\"\"\"\r\n"),
            (std::vector<Strings>{{"a", "b", "c"}, {"d", "e,f", "g \"h\""}}));
  EXPECT_EQ(read_csv("t,u,1,\"x,y\""), (std::vector<Strings>{{"t", "u", "1", "x,y"}}));
  EXPECT_EQ(read_csv("t,,\n"), (std::vector<Strings>{{"t", "", ""}}));
  EXPECT_THROW(read_csv("a,b\"c,d\n"), TokenFileError);
  EXPECT_THROW(read_csv("a,\"b,c\n"), TokenFileError);
}

TEST(TokenFile, UsersUidsAndGroupsAsKubeReadsThem) {
  Strings warnings;
  auto tokens = TokenFileAuthenticator::parse(
      "tok1,jane,1001,\"devs,ops\"\ntok2,joe,1002\n,nobody,1003\ntok2,joe2,1004\n", "/etc/tokens.csv", &warnings);
  EXPECT_EQ(tokens.size(), 2u);
  Result jane = run_sync(tokens.authenticate_token("tok1"));
  ASSERT_EQ(jane.outcome, Outcome::Authenticated);
  EXPECT_EQ(jane.user.name, "jane");
  EXPECT_EQ(jane.user.uid, "1001");
  EXPECT_EQ(jane.user.groups, (Strings{"devs", "ops"}));
  EXPECT_EQ(run_sync(tokens.authenticate_token("tok2")).user.name, "joe2") << "a later duplicate wins";
  EXPECT_EQ(run_sync(tokens.authenticate_token("nope")).outcome, Outcome::NotApplicable);
  EXPECT_EQ(warnings, (Strings{"empty token has been found in token file '/etc/tokens.csv', record number '3'",
                               "duplicate token has been found in token file '/etc/tokens.csv', record number '4'"}));
}

TEST(TokenFile, ShortRecordsAndMissingFilesAreErrors) {
  try {
    TokenFileAuthenticator::parse("tok,user\n", "/etc/tokens.csv");
    FAIL() << "a record of two fields";
  } catch (const TokenFileError& error) {
    EXPECT_STREQ(error.what(),
                 "token file '/etc/tokens.csv' must have at least 3 columns (token, user name, user uid), found 2");
  }
  try {
    TokenFileAuthenticator::read("/nonexistent/tokens.csv");
    FAIL() << "no such file";
  } catch (const TokenFileError& error) {
    EXPECT_STREQ(error.what(), "open /nonexistent/tokens.csv: no such file or directory");
  }
}

class RequestAuthenticatorTest : public ::testing::Test {
 protected:
  RequestAuthenticatorTest() {
    std::ofstream(dir_.path() / "tokens.csv") << "secret,jane,1001,devs\nanon,someone,1002,system:unauthenticated\n";
  }

  Result authenticate(http::Request request, bool anonymous = true) {
    AuthenticationOptions options;
    options.anonymous = anonymous;
    options.token_auth_file = dir_.path() / "tokens.csv";
    auto authenticator = RequestAuthenticator::build(options);
    last_ = std::move(request);
    return run_sync(authenticator->authenticate(last_));
  }
  static http::Request with_authorization(std::string value) {
    http::Request request = make_request("GET", "/api");
    request.headers.set("Authorization", std::move(value));
    return request;
  }
  static http::Request with_certificate(bool verified, std::string common_name = "alice") {
    http::Request request = make_request("GET", "/api");
    request.peer_certificate = http::PeerCertificate{verified, verified ? "" : "unable to get local issuer certificate",
                                                     std::move(common_name), {"team-a", "team-b"}};
    return request;
  }

  test_support::TempDir dir_{"kapi-authn-test"};
  http::Request last_;
};

TEST_F(RequestAuthenticatorTest, ABearerTokenNamesTheUserAndIsConsumed) {
  Result result = authenticate(with_authorization("Bearer secret"));
  ASSERT_EQ(result.outcome, Outcome::Authenticated);
  EXPECT_EQ(result.user.name, "jane");
  EXPECT_EQ(result.user.groups, (Strings{"devs", "system:authenticated"}));
  EXPECT_FALSE(last_.headers.has("Authorization")) << "no stage after authentication sees the token";
  EXPECT_EQ(authenticate(with_authorization("bearer   secret  extra")).user.name, "jane") << "kube's strings.Fields";
  EXPECT_EQ(authenticate(with_authorization("Bearer anon")).user.groups, (Strings{"system:unauthenticated"}))
      << "a user that says it is unauthenticated is not made authenticated";
}

TEST_F(RequestAuthenticatorTest, AnUnknownTokenIsRefusedEvenWhenAnonymousIsAllowed) {
  Result result = authenticate(with_authorization("Bearer wrong"));
  EXPECT_EQ(result.outcome, Outcome::Failed);
  EXPECT_EQ(result.error, "invalid bearer token");
  EXPECT_TRUE(last_.headers.has("Authorization"));
}

TEST_F(RequestAuthenticatorTest, OtherSchemesAndNoCredentialsAreAnonymous) {
  for (const char* header : {"Basic amFuZTpzZWNyZXQ=", "Bearer", "Bearer   ", "secret"}) {
    Result result = authenticate(with_authorization(header));
    ASSERT_EQ(result.outcome, Outcome::Authenticated) << header;
    EXPECT_EQ(result.user.name, "system:anonymous") << header;
    EXPECT_EQ(result.user.groups, (Strings{"system:unauthenticated"}));
  }
  EXPECT_EQ(authenticate(make_request("GET", "/api"), false).outcome, Outcome::NotApplicable)
      << "--anonymous-auth=false: nobody";
}

TEST_F(RequestAuthenticatorTest, ClientCertificates) {
  Result result = authenticate(with_certificate(true));
  ASSERT_EQ(result.outcome, Outcome::Authenticated);
  EXPECT_EQ(result.user.name, "alice");
  EXPECT_EQ(result.user.groups, (Strings{"team-a", "team-b", "system:authenticated"}));
  EXPECT_EQ(authenticate(with_certificate(false)).outcome, Outcome::Failed) << "an untrusted certificate";
  EXPECT_EQ(authenticate(with_certificate(true, "")).user.name, "system:anonymous") << "no CN, no user";
  // A verified certificate wins over a token, as kube tries certificates first.
  http::Request both = with_certificate(true);
  both.headers.set("Authorization", "Bearer secret");
  EXPECT_EQ(authenticate(std::move(both)).user.name, "alice");
}

}  // namespace
}  // namespace kapi::authentication::authentication_test
