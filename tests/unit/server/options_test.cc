#include "server/options.h"

#include "base/duration.h"

#include <gtest/gtest.h>

namespace kapi::server::options_test {
namespace {

Options parse(std::vector<const char*> args) {
  args.insert(args.begin(), "kapi-apiserver");
  return parse_options(static_cast<int>(args.size()), args.data());
}

TEST(Options, DefaultsAreKubeApiserversWhereTheFlagIsShared) {
  Options o = parse({});
  EXPECT_EQ(o.secure_port, 6443);
  EXPECT_EQ(o.max_requests_inflight, 400);
  EXPECT_EQ(o.max_mutating_requests_inflight, 200);
  EXPECT_EQ(o.request_timeout, std::chrono::minutes(1));
  EXPECT_EQ(o.etcd_prefix, "/registry");
  EXPECT_EQ(o.cert_dir, std::filesystem::path("kapi-data") / "pki");
}

TEST(Options, AcceptsPflagForms) {
  Options o = parse({"--secure-port=7443", "--max-requests-inflight", "10", "--etcd-servers=http://a:2379,http://b:2379",
                     "--request-timeout=1m30s", "--enable-testing-endpoints", "--data-dir", "/tmp/x", "-v=4"});
  EXPECT_EQ(o.secure_port, 7443);
  EXPECT_EQ(o.max_requests_inflight, 10);
  EXPECT_EQ(o.etcd_servers, (std::vector<std::string>{"http://a:2379", "http://b:2379"}));
  EXPECT_EQ(o.request_timeout, std::chrono::seconds(90));
  EXPECT_TRUE(o.enable_testing_endpoints);
  EXPECT_EQ(o.cert_dir, std::filesystem::path("/tmp/x/pki"));
  EXPECT_EQ(o.verbosity, 4);
}

TEST(Options, DefaultTolerationSecondsAreKubeApiserversFlags) {
  Options defaults = parse({});
  EXPECT_EQ(defaults.default_not_ready_toleration_seconds, 300);
  EXPECT_EQ(defaults.default_unreachable_toleration_seconds, 300);
  Options o = parse({"--default-not-ready-toleration-seconds=60", "--default-unreachable-toleration-seconds", "120"});
  EXPECT_EQ(o.default_not_ready_toleration_seconds, 60);
  EXPECT_EQ(o.default_unreachable_toleration_seconds, 120);
}

TEST(Options, ExplainsBadFlagsInPflagsWords) {
  try {
    parse({"--no-such-flag"});
    FAIL();
  } catch (const OptionsError& e) {
    EXPECT_STREQ(e.what(), "unknown flag: --no-such-flag");
  }
  try {
    parse({"--secure-port=abc"});
    FAIL();
  } catch (const OptionsError& e) {
    EXPECT_STREQ(e.what(), "invalid argument \"abc\" for \"--secure-port\" flag");
  }
  EXPECT_THROW(parse({"--request-timeout"}), OptionsError);
  EXPECT_THROW(parse({"--secure-port=70000"}), OptionsError);
}

TEST(Options, GoawayChanceIsAFractionUpToOneFiftieth) {
  EXPECT_EQ(parse({}).goaway_chance, 0);
  EXPECT_EQ(parse({"--goaway-chance=0.001"}).goaway_chance, 0.001);
  for (const char* bad : {"--goaway-chance=0.5", "--goaway-chance=-0.01"}) {
    try {
      parse({bad});
      FAIL() << bad;
    } catch (const OptionsError& e) {
      EXPECT_STREQ(e.what(), "--goaway-chance can not be less than 0 or greater than 0.02");
    }
  }
  EXPECT_THROW(parse({"--goaway-chance=often"}), OptionsError);
}

TEST(Options, RequestHeaderFlagsAreKubeApiserversWithEmptyDefaults) {
  Options defaults = parse({});
  EXPECT_TRUE(defaults.requestheader_client_ca_file.empty());
  EXPECT_TRUE(defaults.requestheader_username_headers.empty());
  Options o = parse({"--requestheader-client-ca-file=/pki/front-proxy-ca.crt", "--requestheader-allowed-names=a,b",
                     "--requestheader-username-headers=X-Remote-User", "--requestheader-uid-headers=X-Remote-Uid",
                     "--requestheader-group-headers=X-Remote-Group", "--requestheader-extra-headers-prefix=X-Remote-Extra-"});
  EXPECT_EQ(o.requestheader_client_ca_file, "/pki/front-proxy-ca.crt");
  EXPECT_EQ(o.requestheader_allowed_names, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(o.requestheader_uid_headers, (std::vector<std::string>{"X-Remote-Uid"}));
  try {
    parse({"--requestheader-group-headers=X-Remote-Group, "});
    FAIL();
  } catch (const OptionsError& error) {
    EXPECT_STREQ(error.what(), "empty value in \"requestheader-group-headers\"");
  }
}

TEST(GoDuration, ParsesAndFormatsLikeGo) {
  using namespace std::chrono;
  EXPECT_EQ(base::parse_go_duration("60s"), seconds(60));
  EXPECT_EQ(base::parse_go_duration("1m30s"), seconds(90));
  EXPECT_EQ(base::parse_go_duration("1.5h"), minutes(90));
  EXPECT_EQ(base::parse_go_duration("250ms"), milliseconds(250));
  EXPECT_EQ(base::parse_go_duration("0"), nanoseconds(0));
  EXPECT_EQ(base::parse_go_duration("-2s"), seconds(-2));
  EXPECT_FALSE(base::parse_go_duration(""));
  EXPECT_FALSE(base::parse_go_duration("5"));
  EXPECT_FALSE(base::parse_go_duration("5x"));
  EXPECT_FALSE(base::parse_go_duration("s"));
  EXPECT_EQ(base::format_go_duration(seconds(90)), "1m30s");
  EXPECT_EQ(base::format_go_duration(minutes(1)), "1m0s");
  EXPECT_EQ(base::format_go_duration(milliseconds(1500)), "1.5s");
  EXPECT_EQ(base::format_go_duration(milliseconds(250)), "250ms");
}

}  // namespace
}  // namespace kapi::server::options_test
