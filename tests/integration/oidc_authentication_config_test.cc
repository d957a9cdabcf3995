// JWT authentication from --authentication-config (AuthenticationConfiguration) against two test OIDC issuers:
// CEL claim mappings and validation rules, several audiences, anonymous requests on some paths only, and the file
// reloaded when it changes, a bad new file keeping the old configuration, each reload counted in kube's metrics.
#include "tests/integration/oidc_suite.h"

#include "base/host_address.h"
#include "server/controlplane/apiserver_identity.h"
#include "server/metrics/families.h"

#include <boost/json.hpp>

#include <fstream>
#include <sstream>

namespace kapi::integration::oidc_authentication_config_test {
namespace {

namespace json = boost::json;
using namespace std::chrono_literals;

// The PEM indented to sit in a YAML block scalar.
std::string indented(const std::string& pem, const std::string& indent) {
  std::istringstream lines(pem);
  std::string out, line;
  while (std::getline(lines, line)) out += indent + line + "\n";
  return out;
}

class OidcConfigFileTest : public KapiSuite<OidcConfigFileTest> {
 public:
  static KapiOptions kapi_options() {
    cel_issuer_ = std::make_unique<OidcIssuer>();
    plain_issuer_ = std::make_unique<OidcIssuer>();
    config_file_ = oidc_suite_dir("oidc-config") / "authentication-config.yaml";
    write_config("plain:");
    KapiOptions options;
    options.extra_flags = {"--authentication-config=" + config_file_.string()};
    return options;
  }
  static void TearDownTestSuite() {
    KapiSuite<OidcConfigFileTest>::TearDownTestSuite();
    cel_issuer_.reset();
    plain_issuer_.reset();
  }

 protected:
  // Written whole and renamed into place, as a configuration management tool replaces a file.
  static void write_text(const std::string& text) {
    const auto next = config_file_.string() + ".next";
    std::ofstream(next) << text;
    std::filesystem::rename(next, config_file_);
  }

  static void write_config(const std::string& plain_prefix) {
    write_text("apiVersion: apiserver.config.k8s.io/v1beta1\nkind: AuthenticationConfiguration\n"
               "anonymous:\n"
               "  enabled: true\n"
               "  conditions: [{path: /livez}, {path: /readyz}]\n"
               "jwt:\n"
               "- issuer:\n"
               "    url: " + cel_issuer_->url() + "\n"
               "    audiences: [kapi-cel, kapi-other]\n"
               "    audienceMatchPolicy: MatchAny\n"
               "    certificateAuthority: |\n" + indented(cel_issuer_->ca_pem(), "      ") +
               "  claimValidationRules:\n"
               "  - expression: \"claims.tier == 'gold'\"\n"
               "    message: only gold members\n"
               "  claimMappings:\n"
               "    username:\n"
               "      expression: \"'cel:' + claims.sub\"\n"
               "    groups:\n"
               "      expression: \"claims.roles.map(r, 'role:' + r)\"\n"
               "    uid:\n"
               "      claim: uid\n"
               "    extra:\n"
               "    - key: example.com/tier\n"
               "      valueExpression: claims.tier\n"
               "  userValidationRules:\n"
               "  - expression: \"!user.username.startsWith('cel:blocked')\"\n"
               "    message: blocked users may not log in\n"
               "- issuer:\n"
               "    url: " + plain_issuer_->url() + "\n"
               "    audiences: [kapi-plain]\n"
               "    certificateAuthority: |\n" + indented(plain_issuer_->ca_pem(), "      ") +
               "  claimMappings:\n"
               "    username:\n"
               "      claim: sub\n"
               "      prefix: \"" + plain_prefix + "\"\n");
  }

  static std::string cel_token(const std::string& subject, const std::string& tier,
                               const std::string& audience = "kapi-cel") {
    json::object claims = cel_issuer_->claims(subject, audience);
    claims["tier"] = tier;
    claims["roles"] = json::array{"admin", "dev"};
    claims["uid"] = "uid-" + subject;
    return cel_issuer_->mint(claims, "ec-1");
  }
  static std::string plain_token(const std::string& subject) {
    return plain_issuer_->mint(plain_issuer_->claims(subject, "kapi-plain"));
  }

  static inline std::unique_ptr<OidcIssuer> cel_issuer_, plain_issuer_;
  static inline std::filesystem::path config_file_;
};

TEST_F(OidcConfigFileTest, CelExpressionsMapClaimsToTheUser) {
  // As kube, the issuers' keys are fetched after the start: tokens fail until then.
  ASSERT_TRUE(eventually([&] { return !who_am_i(kapi(), cel_token("alice", "gold")).empty(); })) << kapi().logs();
  const json::object user = who_am_i(kapi(), cel_token("alice", "gold"));
  ASSERT_FALSE(user.empty()) << "the token was refused";
  EXPECT_EQ(user.at("username"), "cel:alice");
  EXPECT_EQ(user.at("uid"), "uid-alice");
  EXPECT_EQ(user.at("groups"), (json::array{"role:admin", "role:dev", "system:authenticated"}));
  EXPECT_EQ(user.at("extra"), (json::object{{"example.com/tier", json::array{"gold"}}}));
  EXPECT_EQ(username_of(kapi(), cel_token("alice", "gold", "kapi-other")), "cel:alice") << "any of the audiences";
}

TEST_F(OidcConfigFileTest, ValidationRulesRefuseTokens) {
  EXPECT_EQ(username_of(kapi(), cel_token("alice", "silver")), "") << "claim validation rule";
  EXPECT_EQ(username_of(kapi(), cel_token("blocked-mallory", "gold")), "") << "user validation rule";
  HttpResponse refused = get_with_token(kapi(), cel_token("alice", "silver"));
  EXPECT_TRUE(is_status(refused, 401, "Unauthorized")) << refused.body;
  EXPECT_EQ(status_message(refused), "Unauthorized");
  EXPECT_EQ(username_of(kapi(), cel_token("alice", "gold", "kapi-plain")), "") << "another issuer's audience";
}

TEST_F(OidcConfigFileTest, EachIssuerHasItsOwnMappings) {
  EXPECT_EQ(username_of(kapi(), plain_token("bob")), "plain:bob");
  CommandResult whoami = kubectl_with_exec_plugin(kapi(), plain_token("bob"), "bob",
                                                  "auth whoami -o jsonpath={.status.userInfo.username}");
  EXPECT_EQ(whoami.exit_code, 0) << whoami.output;
  EXPECT_EQ(whoami.output, "plain:bob");
}

// AnonymousAuthConfigurableEndpoints (beta, on in 1.32): anonymous requests on the configured paths only.
TEST_F(OidcConfigFileTest, AnonymousRequestsOnlyOnTheConfiguredPaths) {
  EXPECT_EQ(kapi().connect_anonymous().request("GET", "/livez").status, 200);
  EXPECT_EQ(kapi().connect_anonymous().request("GET", "/readyz").status, 200);
  HttpResponse elsewhere = kapi().connect_anonymous().request("GET", "/version");
  EXPECT_TRUE(is_status(elsewhere, 401, "Unauthorized")) << elsewhere.body;
  EXPECT_EQ(kapi().connect_anonymous().request("GET", "/livez/ping").status, 401) << "exact paths only";
}

TEST_F(OidcConfigFileTest, TheFileIsReloadedWhenItChangesAndABadFileKeepsTheLastGoodOne) {
  write_config("renamed:");
  EXPECT_TRUE(eventually([&] { return username_of(kapi(), plain_token("bob")) == "renamed:bob"; }, 20s, 200ms))
      << kapi().logs();
  EXPECT_NE(kapi().logs().find("reloaded authentication config"), std::string::npos);

  // Invalid: the issuer is not https. The last good configuration stays, and the failure is logged.
  write_text("apiVersion: apiserver.config.k8s.io/v1beta1\nkind: AuthenticationConfiguration\njwt:\n"
             "- issuer: {url: \"http://insecure.example.com\", audiences: [x]}\n"
             "  claimMappings: {username: {claim: sub, prefix: \"\"}}\n");
  EXPECT_TRUE(eventually([&] {
    const std::string logs = kapi().logs();
    return logs.find("\"failed to validate authentication config\"") != std::string::npos &&
           logs.find("URL scheme must be https") != std::string::npos;
  }, 20s, 200ms)) << kapi().logs();
  EXPECT_EQ(username_of(kapi(), plain_token("bob")), "renamed:bob");
  EXPECT_EQ(username_of(kapi(), cel_token("alice", "gold")), "cel:alice");

  write_config("plain:");  // as the other tests expect
  EXPECT_TRUE(eventually([&] { return username_of(kapi(), plain_token("bob")) == "plain:bob"; }, 20s, 200ms));

  // Each reload counted as kube counts it (none at start), labelled with the hash of the server's identity.
  const std::string id_hash =
      metrics::sha256_label(controlplane::apiserver_identity(base::hostname()));
  const std::string metrics = kapi().connect_admin().request("GET", "/metrics").body;
  const std::string reloads = "apiserver_authentication_config_controller_automatic_reloads_total{apiserver_id_hash=\"" +
                              id_hash + "\",status=";
  EXPECT_NE(metrics.find(reloads + "\"success\"} 2\n"), std::string::npos) << metrics;
  EXPECT_NE(metrics.find(reloads + "\"failure\"} 1\n"), std::string::npos) << metrics;
  EXPECT_NE(metrics.find("apiserver_authentication_config_controller_automatic_reload_last_timestamp_seconds{"
                         "apiserver_id_hash=\"" + id_hash + "\",status=\"success\"} "),
            std::string::npos)
      << metrics;
}

}  // namespace
}  // namespace kapi::integration::oidc_authentication_config_test
