// kube's urls library (library/cel_test.go TestURLs and the library's documented examples), over Go's net/url.
#include "cel/ext/kube_types.h"
#include "tests/unit/cel/ext/ext_testing.h"

namespace kapi::cel::ext::urls_test {
namespace {

using testing::call;
using testing::error_of;
using testing::strings;

Value url(std::string s) { return call(urls_library(), "string_to_url", {Value(std::move(s))}); }
std::string get(std::string_view id, std::string s) {
  Value v = call(urls_library(), id, {url(std::move(s))});
  return v.is<std::string>() ? v.get<std::string>() : "<" + error_of(v) + ">";
}

TEST(CelURLs, Accessors) {
  EXPECT_EQ(get("url_get_scheme", "https://example.com/"), "https");
  EXPECT_EQ(get("url_get_scheme", "HTTPS://example.com/"), "https");
  EXPECT_EQ(get("url_get_host", "https://example.com/"), "example.com");
  EXPECT_EQ(get("url_get_host", "https://example.com:80/"), "example.com:80");
  EXPECT_EQ(get("url_get_host", "https://[::1]:80/"), "[::1]:80");
  EXPECT_EQ(get("url_get_host", "https://[::1]/"), "[::1]");
  EXPECT_EQ(get("url_get_host", "/path"), "");
  EXPECT_EQ(get("url_get_hostname", "https://example.com:80/"), "example.com");
  EXPECT_EQ(get("url_get_hostname", "https://127.0.0.1:80/"), "127.0.0.1");
  EXPECT_EQ(get("url_get_hostname", "https://[::1]:80/"), "::1");
  EXPECT_EQ(get("url_get_hostname", "/path"), "");
  EXPECT_EQ(get("url_get_port", "https://example.com:80/"), "80");
  EXPECT_EQ(get("url_get_port", "https://example.com/"), "");
  EXPECT_EQ(get("url_get_port", "/path"), "");
  EXPECT_EQ(get("url_get_escaped_path", "https://example.com/path"), "/path");
  EXPECT_EQ(get("url_get_escaped_path", "https://example.com/path with spaces/"), "/path%20with%20spaces/");
  EXPECT_EQ(get("url_get_escaped_path", "https://example.com"), "");
  EXPECT_EQ(get("url_get_escaped_path", "https://example.com/a%2fb"), "/a%2fb");
  EXPECT_EQ(get("url_get_host", "https://user:pass@example.com:80/path?query=val#fragment"), "example.com:80");
  EXPECT_EQ(get("url_get_escaped_path", "https://example.com/path#fragment"), "/path");
}

TEST(CelURLs, Query) {
  auto query = [](std::string s) { return call(urls_library(), "url_get_query", {url(std::move(s))}); };
  EXPECT_TRUE(equals(query("https://example.com/path?k1=a&k2=b&k2=c"),
                     Value::map({{"k1", strings({"a"})}, {"k2", strings({"b", "c"})}})));
  EXPECT_TRUE(equals(query("https://example.com/path?key with spaces=value with spaces"),
                     Value::map({{"key with spaces", strings({"value with spaces"})}})));
  EXPECT_TRUE(equals(query("https://example.com/path?"), Value::map({})));
  EXPECT_TRUE(equals(query("https://example.com/path"), Value::map({})));
  EXPECT_TRUE(equals(query("https://example.com/?a=%41&b=x+y&bad=%zz&c;d=1"),
                     Value::map({{"a", strings({"A"})}, {"b", strings({"x y"})}})));
}

TEST(CelURLs, ParseErrorsAndIsURL) {
  EXPECT_EQ(error_of(url("../relative-path")),
            "URL parse error during conversion from string: parse \"../relative-path\": invalid URI for request");
  EXPECT_EQ(error_of(url("")), "URL parse error during conversion from string: parse \"\": empty url");
  EXPECT_EQ(error_of(url("https://[::1/")),
            "URL parse error during conversion from string: parse \"https://[::1/\": missing ']' in host");
  EXPECT_EQ(error_of(url("https://example.com:8a/")),
            "URL parse error during conversion from string: parse \"https://example.com:8a/\": invalid port \":8a\" "
            "after host");
  EXPECT_EQ(error_of(url(":foo")),
            "URL parse error during conversion from string: parse \":foo\": missing protocol scheme");
  EXPECT_EQ(error_of(url("https://a b.com/")),
            "URL parse error during conversion from string: parse \"https://a b.com/\": invalid character \" \" in "
            "host name");
  EXPECT_EQ(error_of(url("https://example.com/%zz")),
            "URL parse error during conversion from string: parse \"https://example.com/%zz\": invalid URL escape "
            "\"%zz\"");
  auto is_url = [](std::string s) { return call(urls_library(), "is_url_string", {Value(std::move(s))}); };
  EXPECT_TRUE(equals(is_url("https://user:pass@example.com:80/path?query=val#fragment"), Value(true)));
  EXPECT_TRUE(equals(is_url("/absolute-path"), Value(true)));
  EXPECT_TRUE(equals(is_url("https://example.com/a b"), Value(true)));
  EXPECT_TRUE(equals(is_url("../relative-path"), Value(false)));
  EXPECT_TRUE(equals(is_url("https://a\nb/"), Value(false)));
  EXPECT_TRUE(equals(url("https://example.com/x"), url("https://example.com/x")));
  EXPECT_FALSE(equals(url("https://example.com/x"), url("https://example.com/y")));
}

TEST(CelURLs, HostsAsGoReadsThem) {
  EXPECT_EQ(get("url_get_host", "http://[fe80::1%25en0]:8080/"), "[fe80::1%en0]:8080");
  EXPECT_EQ(get("url_get_hostname", "http://[fe80::1%25en0]:8080/"), "fe80::1%en0");
  EXPECT_EQ(get("url_get_host", "http://user:pass@host:80/p"), "host:80");
  EXPECT_EQ(get("url_get_host", "http://h%C3%A9/"), "h\xc3\xa9");
  EXPECT_EQ(get("url_get_port", "http://host:/"), "");
  EXPECT_EQ(get("url_get_hostname", "http://host:/"), "host");
  EXPECT_EQ(get("url_get_scheme", "mailto:user@example.com"), "mailto");
  EXPECT_EQ(get("url_get_escaped_path", "mailto:user@example.com"), "");
  EXPECT_EQ(error_of(url("http://[fe80::1%en0]/")),
            "URL parse error during conversion from string: parse \"http://[fe80::1%en0]/\": invalid URL escape "
            "\"%en\"");
  EXPECT_EQ(error_of(url("http://%41:8080/")),
            "URL parse error during conversion from string: parse \"http://%41:8080/\": invalid URL escape \"%41\"");
  EXPECT_EQ(error_of(url("http://a b@c/")),
            "URL parse error during conversion from string: parse \"http://a b@c/\": net/url: invalid userinfo");
  EXPECT_EQ(error_of(url("http://x/\x7f")),
            "URL parse error during conversion from string: parse \"http://x/\\x7f\": net/url: invalid control "
            "character in URL");
}

}  // namespace
}  // namespace kapi::cel::ext::urls_test
