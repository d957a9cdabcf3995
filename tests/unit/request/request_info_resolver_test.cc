#include "request/request_info_resolver.h"

#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

namespace kapi::request::request_info_resolver_test {
namespace {

RequestInfoResult resolve(std::string_view method, std::string_view target, const RequestInfoResolver& resolver = {}) {
  auto result = resolver.resolve_target(method, target);
  EXPECT_TRUE(result.has_value()) << target;
  return result.value_or(RequestInfoResult{});
}

// ---- TestGetAPIRequestInfo (requestinfo_test.go), success cases --------------------------------------------------

struct ApiCase {
  std::string method;
  std::string url;
  std::string verb;
  std::string api_prefix;
  std::string api_group;
  std::string api_version;
  std::string namespace_;
  std::string resource;
  std::string subresource;
  std::string name;
  std::vector<std::string> parts;
  friend std::ostream& operator<<(std::ostream& os, const ApiCase& c) { return os << c.method << ' ' << c.url; }
};

class GetAPIRequestInfo : public testing::TestWithParam<ApiCase> {};

TEST_P(GetAPIRequestInfo, ResolvesLikeKubeApiserver) {
  const ApiCase& c = GetParam();
  const auto [info, error] = resolve(c.method, c.url);
  EXPECT_FALSE(error.has_value()) << *error;
  EXPECT_TRUE(info.is_resource_request);
  EXPECT_EQ(info.verb, c.verb);
  EXPECT_EQ(info.api_prefix, c.api_prefix);
  EXPECT_EQ(info.api_group, c.api_group);
  EXPECT_EQ(info.api_version, c.api_version);
  EXPECT_EQ(info.namespace_, c.namespace_);
  EXPECT_EQ(info.resource, c.resource);
  EXPECT_EQ(info.subresource, c.subresource);
  EXPECT_EQ(info.name, c.name);
  EXPECT_EQ(info.parts, c.parts);
}

// Every success case of the Go table. The Go table's prefix column reads "api" for /apis/... URLs but the Go test
// never asserts it; the prefix the code really yields ("apis") is asserted here instead.
const std::string kAll;  // metav1.NamespaceAll
INSTANTIATE_TEST_SUITE_P(
    RequestInfoTest, GetAPIRequestInfo,
    testing::Values(
        // resource paths
        ApiCase{"GET", "/api/v1/namespaces", "list", "api", "", "v1", "", "namespaces", "", "", {"namespaces"}},
        ApiCase{"GET", "/api/v1/namespaces/other", "get", "api", "", "v1", "other", "namespaces", "", "other",
                {"namespaces", "other"}},
        ApiCase{"GET", "/api/v1/namespaces/other/pods", "list", "api", "", "v1", "other", "pods", "", "", {"pods"}},
        ApiCase{"GET", "/api/v1/namespaces/other/pods/foo", "get", "api", "", "v1", "other", "pods", "", "foo",
                {"pods", "foo"}},
        ApiCase{"HEAD", "/api/v1/namespaces/other/pods/foo", "get", "api", "", "v1", "other", "pods", "", "foo",
                {"pods", "foo"}},
        ApiCase{"GET", "/api/v1/pods", "list", "api", "", "v1", kAll, "pods", "", "", {"pods"}},
        ApiCase{"HEAD", "/api/v1/pods", "list", "api", "", "v1", kAll, "pods", "", "", {"pods"}},
        ApiCase{"GET", "/api/v1/namespaces/other/pods/foo", "get", "api", "", "v1", "other", "pods", "", "foo",
                {"pods", "foo"}},
        ApiCase{"GET", "/api/v1/namespaces/other/pods", "list", "api", "", "v1", "other", "pods", "", "", {"pods"}},
        // special verbs
        ApiCase{"GET", "/api/v1/proxy/namespaces/other/pods/foo", "proxy", "api", "", "v1", "other", "pods", "", "foo",
                {"pods", "foo"}},
        ApiCase{"GET", "/api/v1/proxy/namespaces/other/pods/foo/subpath/not/a/subresource", "proxy", "api", "", "v1",
                "other", "pods", "", "foo", {"pods", "foo", "subpath", "not", "a", "subresource"}},
        ApiCase{"GET", "/api/v1/watch/pods", "watch", "api", "", "v1", kAll, "pods", "", "", {"pods"}},
        ApiCase{"GET", "/api/v1/pods?watch=true", "watch", "api", "", "v1", kAll, "pods", "", "", {"pods"}},
        ApiCase{"GET", "/api/v1/pods?watch=false", "list", "api", "", "v1", kAll, "pods", "", "", {"pods"}},
        ApiCase{"GET", "/api/v1/watch/namespaces/other/pods", "watch", "api", "", "v1", "other", "pods", "", "",
                {"pods"}},
        ApiCase{"GET", "/api/v1/namespaces/other/pods?watch=1", "watch", "api", "", "v1", "other", "pods", "", "",
                {"pods"}},
        ApiCase{"GET", "/api/v1/namespaces/other/pods?watch=0", "list", "api", "", "v1", "other", "pods", "", "",
                {"pods"}},
        // subresource identification
        ApiCase{"GET", "/api/v1/namespaces/other/pods/foo/status", "get", "api", "", "v1", "other", "pods", "status",
                "foo", {"pods", "foo", "status"}},
        ApiCase{"GET", "/api/v1/namespaces/other/pods/foo/proxy/subpath", "get", "api", "", "v1", "other", "pods",
                "proxy", "foo", {"pods", "foo", "proxy", "subpath"}},
        ApiCase{"PUT", "/api/v1/namespaces/other/finalize", "update", "api", "", "v1", "other", "namespaces",
                "finalize", "other", {"namespaces", "other", "finalize"}},
        ApiCase{"PUT", "/api/v1/namespaces/other/status", "update", "api", "", "v1", "other", "namespaces", "status",
                "other", {"namespaces", "other", "status"}},
        // verb identification
        ApiCase{"PATCH", "/api/v1/namespaces/other/pods/foo", "patch", "api", "", "v1", "other", "pods", "", "foo",
                {"pods", "foo"}},
        ApiCase{"DELETE", "/api/v1/namespaces/other/pods/foo", "delete", "api", "", "v1", "other", "pods", "", "foo",
                {"pods", "foo"}},
        ApiCase{"POST", "/api/v1/namespaces/other/pods", "create", "api", "", "v1", "other", "pods", "", "", {"pods"}},
        // deletecollection verb identification
        ApiCase{"DELETE", "/api/v1/nodes", "deletecollection", "api", "", "v1", "", "nodes", "", "", {"nodes"}},
        ApiCase{"DELETE", "/api/v1/namespaces", "deletecollection", "api", "", "v1", "", "namespaces", "", "",
                {"namespaces"}},
        ApiCase{"DELETE", "/api/v1/namespaces/other/pods", "deletecollection", "api", "", "v1", "other", "pods", "", "",
                {"pods"}},
        ApiCase{"DELETE", "/apis/extensions/v1/namespaces/other/pods", "deletecollection", "apis", "extensions", "v1",
                "other", "pods", "", "", {"pods"}},
        // api group identification
        ApiCase{"POST", "/apis/extensions/v1/namespaces/other/pods", "create", "apis", "extensions", "v1", "other",
                "pods", "", "", {"pods"}},
        // api version identification
        ApiCase{"POST", "/apis/extensions/v1beta3/namespaces/other/pods", "create", "apis", "extensions", "v1beta3",
                "other", "pods", "", "", {"pods"}}));

// ---- TestGetAPIRequestInfo error cases and TestGetNonAPIRequestInfo ----------------------------------------------

struct ResourceRequestCase {
  std::string name;
  std::string url;
  bool is_resource_request;
};

class IsResourceRequest : public testing::TestWithParam<ResourceRequestCase> {};

TEST_P(IsResourceRequest, WithoutError) {
  const auto [info, error] = resolve("GET", GetParam().url);
  EXPECT_FALSE(error.has_value());
  EXPECT_EQ(info.is_resource_request, GetParam().is_resource_request) << GetParam().name;
  if (!info.is_resource_request) {
    EXPECT_EQ(info.verb, "get");  // the lowercased method
    EXPECT_EQ(info.path, GetParam().url);
  }
}

INSTANTIATE_TEST_SUITE_P(
    GetAPIRequestInfoErrorCases, IsResourceRequest,
    testing::Values(ResourceRequestCase{"no resource path", "/", false},
                    ResourceRequestCase{"just apiversion", "/api/version/", false},
                    ResourceRequestCase{"just prefix, group, version", "/apis/group/version/", false},
                    ResourceRequestCase{"apiversion with no resource", "/api/version/", false},
                    ResourceRequestCase{"bad prefix", "/badprefix/version/resource", false},
                    ResourceRequestCase{"missing api group", "/apis/version/resource", false}));

INSTANTIATE_TEST_SUITE_P(
    GetNonAPIRequestInfo, IsResourceRequest,
    testing::Values(ResourceRequestCase{"simple groupless", "/api/version/resource", true},
                    ResourceRequestCase{"simple group", "/apis/group/version/resource/name/subresource", true},
                    ResourceRequestCase{"more steps", "/api/version/resource/name/subresource", true},
                    ResourceRequestCase{"group list", "/apis/batch/v1/job", true},
                    ResourceRequestCase{"group get", "/apis/batch/v1/job/foo", true},
                    ResourceRequestCase{"group subresource", "/apis/batch/v1/job/foo/scale", true},
                    ResourceRequestCase{"bad root", "/not-api/version/resource", false},
                    ResourceRequestCase{"group without enough steps", "/apis/extensions/v1beta1", false},
                    ResourceRequestCase{"group without enough steps 2", "/apis/extensions/v1beta1/", false},
                    ResourceRequestCase{"not enough steps", "/api/version", false},
                    ResourceRequestCase{"one step", "/api", false},
                    ResourceRequestCase{"zero step", "/", false},
                    ResourceRequestCase{"empty", "", false}));

// ---- TestSelectorParsing ----------------------------------------------------------------------------------------

struct SelectorCase {
  std::string name;
  std::string method;
  std::string url;
  std::string expected_name;
  std::string expected_verb;
  std::string expected_field_selector;
  std::string expected_label_selector;
  friend std::ostream& operator<<(std::ostream& os, const SelectorCase& c) { return os << c.name; }
};

class SelectorParsing : public testing::TestWithParam<SelectorCase> {};

TEST_P(SelectorParsing, SetsNameVerbAndSelectors) {
  const SelectorCase& c = GetParam();
  // In Go the "invalid selector" cases expect an error *if* one is returned; NewRequestInfo returns none for them.
  const auto [info, error] = resolve(c.method, c.url);
  EXPECT_FALSE(error.has_value());
  EXPECT_EQ(info.name, c.expected_name);
  EXPECT_EQ(info.verb, c.expected_verb);
  EXPECT_EQ(info.field_selector, c.expected_field_selector);
  EXPECT_EQ(info.label_selector, c.expected_label_selector);
}

INSTANTIATE_TEST_SUITE_P(
    RequestInfoTest, SelectorParsing,
    testing::Values(
        SelectorCase{"no selector", "GET", "/apis/group/version/resource", "", "list", "", ""},
        SelectorCase{"metadata.name selector", "GET", "/apis/group/version/resource?fieldSelector=metadata.name=name1",
                     "name1", "list", "metadata.name=name1", ""},
        SelectorCase{"metadata.name selector with watch", "GET",
                     "/apis/group/version/resource?watch=true&fieldSelector=metadata.name=name1", "name1", "watch",
                     "metadata.name=name1", ""},
        SelectorCase{"random selector", "GET",
                     "/apis/group/version/resource?fieldSelector=foo=bar&labelSelector=baz=qux", "", "list", "foo=bar",
                     "baz=qux"},
        SelectorCase{"invalid selector with metadata.name", "GET",
                     "/apis/group/version/resource?fieldSelector=metadata.name=name1,foo", "", "list",
                     "metadata.name=name1,foo", ""},
        SelectorCase{"invalid selector with metadata.name with watch", "GET",
                     "/apis/group/version/resource?fieldSelector=metadata.name=name1,foo&watch=true", "", "watch",
                     "metadata.name=name1,foo", ""},
        SelectorCase{"invalid selector with metadata.name with watch false", "GET",
                     "/apis/group/version/resource?fieldSelector=metadata.name=name1,foo&watch=false", "", "list",
                     "metadata.name=name1,foo", ""},
        SelectorCase{"selector on deletecollection is honored", "DELETE",
                     "/apis/group/version/resource?fieldSelector=foo=bar&labelSelector=baz=qux", "",
                     "deletecollection", "foo=bar", "baz=qux"},
        SelectorCase{"selector on repeated param matches parsed param", "GET",
                     "/apis/group/version/resource?fieldSelector=metadata.name=foo&fieldSelector=metadata.name=bar"
                     "&labelSelector=foo=bar&labelSelector=foo=baz",
                     "foo", "list", "metadata.name=foo", "foo=bar"},
        SelectorCase{"selector on other verb is ignored", "GET",
                     "/apis/group/version/resource/name?fieldSelector=foo=bar&labelSelector=foo=bar", "name", "get",
                     "", ""},
        SelectorCase{"selector on deprecated root type watch is not parsed", "GET",
                     "/apis/group/version/watch/resource?fieldSelector=metadata.name=foo&labelSelector=foo=bar", "",
                     "watch", "", ""},
        SelectorCase{"selector on deprecated root item watch is not parsed", "GET",
                     "/apis/group/version/watch/resource/name?fieldSelector=metadata.name=foo&labelSelector=foo=bar",
                     "name", "watch", "", ""},
        // Beyond the Go table: how the ListOptions decode decides whether the field selector may name the object.
        SelectorCase{"an escaped comma is unescaped into the name", "GET",
                     "/api/v1/pods?fieldSelector=metadata.name%3Da%5C%2Cb", "a,b", "list", "metadata.name=a\\,b", ""},
        SelectorCase{"an escaped slash is no escape at all", "GET",
                     "/api/v1/pods?fieldSelector=metadata.name%3Da%5C%2Fb", "", "list", "metadata.name=a\\/b", ""},
        SelectorCase{"double equals", "GET", "/api/v1/pods?fieldSelector=metadata.name%3D%3Dn1", "n1", "list",
                     "metadata.name==n1", ""},
        SelectorCase{"not-equals names nothing", "GET", "/api/v1/pods?fieldSelector=metadata.name!%3Dn1", "", "list",
                     "metadata.name!=n1", ""},
        SelectorCase{"terms are sorted before the first match wins", "GET",
                     "/api/v1/pods?fieldSelector=metadata.name%3Dzed,metadata.name%3Dabc", "abc", "list",
                     "metadata.name=zed,metadata.name=abc", ""},
        SelectorCase{"an invalid label selector discards the name", "GET",
                     "/api/v1/pods?fieldSelector=metadata.name%3Dn1&labelSelector=a%3D%3Db%3D%3Dc", "", "list",
                     "metadata.name=n1", "a==b==c"},
        SelectorCase{"a non-integer limit discards the name", "GET",
                     "/api/v1/pods?fieldSelector=metadata.name%3Dn1&limit=ten", "", "list", "metadata.name=n1", ""},
        SelectorCase{"an empty timeoutSeconds discards the name", "GET",
                     "/api/v1/pods?fieldSelector=metadata.name%3Dn1&timeoutSeconds=&watch=1", "", "watch",
                     "metadata.name=n1", ""},
        SelectorCase{"a watch with an integer timeout keeps the name", "GET",
                     "/api/v1/pods?fieldSelector=metadata.name%3Dn1&timeoutSeconds=30&limit=-1&watch=yes", "n1",
                     "watch", "metadata.name=n1", ""},
        SelectorCase{"'..' is not a usable name", "GET", "/api/v1/pods?fieldSelector=metadata.name%3D..", "", "list",
                     "metadata.name=..", ""},
        SelectorCase{"'%' is not a usable name", "GET", "/api/v1/pods?fieldSelector=metadata.name%3Da%25b", "",
                     "list", "metadata.name=a%b", ""},
        SelectorCase{"a field selector on delete does not name the object", "DELETE",
                     "/api/v1/namespaces/ns/pods?fieldSelector=metadata.name%3Dn1", "", "deletecollection",
                     "metadata.name=n1", ""}));

// ---- behaviour the Go tests leave implicit ---------------------------------------------------------------------

TEST(RequestInfoResolver, WatchWithoutResourceIsAnError) {
  const auto [info, error] = resolve("GET", "/api/v1/watch?timeoutSeconds=5");
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(*error, "unable to determine kind and namespace from url, /api/v1/watch?timeoutSeconds=5");
  EXPECT_TRUE(info.is_resource_request);
  EXPECT_EQ(info.api_version, "v1");
  EXPECT_EQ(info.verb, "get");  // as far as it got: the lowercased method
  EXPECT_TRUE(info.resource.empty());

  EXPECT_TRUE(resolve("GET", "/apis/apps/v1/proxy").error.has_value());
  EXPECT_FALSE(resolve("GET", "/apis/apps/v1/proxy/nodes").error.has_value());
}

TEST(RequestInfoResolver, WatchQueryValuesFollowTheConversionNotParseBool) {
  // Only "0" and "false" (any case) mean false; anything else, even "" or "no", means true.
  for (const std::string value : {"true", "1", "TRUE", "", "no", "off", "yes", "f"}) {
    EXPECT_EQ(resolve("GET", "/api/v1/pods?watch=" + value).info.verb, "watch") << value;
  }
  for (const std::string value : {"false", "0", "FALSE", "False", "fal%C5%BFe"}) {
    EXPECT_EQ(resolve("GET", "/api/v1/pods?watch=" + value).info.verb, "list") << value;
  }
  // Only the first value counts.
  EXPECT_EQ(resolve("GET", "/api/v1/pods?watch=0&watch=1").info.verb, "list");
  // When decoding fails NewRequestInfo reads watch with strings.ToLower, which does not fold the long s.
  EXPECT_EQ(resolve("GET", "/api/v1/pods?limit=x&watch=fal%C5%BFe").info.verb, "watch");
  EXPECT_EQ(resolve("GET", "/api/v1/pods?limit=x&watch=FALSE").info.verb, "list");
}

TEST(RequestInfoResolver, MethodsWithoutKubernetesVerb) {
  const auto resource = resolve("OPTIONS", "/api/v1/namespaces/ns/pods/p").info;
  EXPECT_TRUE(resource.is_resource_request);
  EXPECT_EQ(resource.verb, "");
  EXPECT_EQ(resource.name, "p");
  // Methods are case-sensitive: "get" is not GET for the verb mapping.
  EXPECT_EQ(resolve("get", "/api/v1/pods").info.verb, "");

  const auto non_resource = resolve("OPTIONS", "/healthz").info;
  EXPECT_FALSE(non_resource.is_resource_request);
  EXPECT_EQ(non_resource.verb, "options");
  EXPECT_EQ(resolve("POST", "/apis").info.verb, "post");
}

TEST(RequestInfoResolver, NamespacesAreAResourceOfTheirOwn) {
  const auto get = resolve("GET", "/api/v1/namespaces/foo").info;
  EXPECT_EQ(get.resource, "namespaces");
  EXPECT_EQ(get.name, "foo");
  EXPECT_EQ(get.namespace_, "foo");
  EXPECT_EQ(get.scope(), "resource");

  const auto status = resolve("GET", "/api/v1/namespaces/foo/status").info;
  EXPECT_EQ(status.resource, "namespaces");
  EXPECT_EQ(status.subresource, "status");
  EXPECT_EQ(status.name, "foo");

  // Anything else after the namespace name is a namespaced resource.
  const auto pods = resolve("GET", "/api/v1/namespaces/foo/pods").info;
  EXPECT_EQ(pods.resource, "pods");
  EXPECT_EQ(pods.namespace_, "foo");
  EXPECT_EQ(pods.verb, "list");
}

TEST(RequestInfoResolver, PathIsDecodedAndSplitLikeGo) {
  const auto info = resolve("GET", "/api/v1/namespaces/a%20b/configmaps/c%2Fd").info;
  EXPECT_EQ(info.path, "/api/v1/namespaces/a b/configmaps/c/d");
  EXPECT_EQ(info.namespace_, "a b");
  EXPECT_EQ(info.name, "c");  // an encoded '/' splits like a plain one, since Go splits URL.Path
  EXPECT_EQ(info.subresource, "d");

  // Only outer slashes are trimmed; inner empty segments stay.
  const auto doubled = resolve("GET", "//api//v1/pods/").info;
  EXPECT_TRUE(doubled.is_resource_request);
  EXPECT_EQ(doubled.api_version, "");
  EXPECT_EQ(doubled.resource, "v1");
  EXPECT_EQ(doubled.name, "pods");

  EXPECT_EQ(RequestInfoResolver{}.resolve_target("GET", "/api/v1/pods/%zz"), std::nullopt);
  // '+' is no space in a path.
  EXPECT_EQ(resolve("GET", "/api/v1/namespaces/a+b/pods").info.namespace_, "a+b");
}

TEST(RequestInfoResolver, ScopeMatchesMetricsCleanScope) {
  EXPECT_EQ(resolve("GET", "/api/v1/namespaces/ns/pods/p").info.scope(), "resource");
  EXPECT_EQ(resolve("POST", "/api/v1/namespaces/ns/pods").info.scope(), "resource");
  EXPECT_EQ(resolve("GET", "/api/v1/namespaces/ns/pods").info.scope(), "namespace");
  EXPECT_EQ(resolve("GET", "/api/v1/pods").info.scope(), "cluster");
  EXPECT_EQ(resolve("DELETE", "/apis/rbac.authorization.k8s.io/v1/clusterroles").info.scope(), "cluster");
  EXPECT_EQ(resolve("GET", "/api/v1/pods?fieldSelector=metadata.name%3Dp").info.scope(), "resource");
  EXPECT_EQ(resolve("GET", "/healthz").info.scope(), "");
  EXPECT_EQ(resolve("GET", "/apis").info.scope(), "");
}

TEST(RequestInfoResolver, SelectorsCanBeSwitchedOffWithTheFeatureGate) {
  RequestInfoResolver::Options options;
  options.authorize_with_selectors = false;
  const RequestInfoResolver resolver(options);
  const auto info = resolve("GET", "/api/v1/pods?fieldSelector=metadata.name%3Dp&labelSelector=a", resolver).info;
  EXPECT_EQ(info.name, "p");  // the name still comes from the decoded ListOptions
  EXPECT_EQ(info.field_selector, "");
  EXPECT_EQ(info.label_selector, "");
}

TEST(RequestInfoResolver, CustomPrefixes) {
  RequestInfoResolver::Options options;
  options.api_prefixes = {"api", "apis", "oapi"};
  options.groupless_api_prefixes = {"api", "oapi"};
  const RequestInfoResolver resolver(options);
  const auto info = resolve("GET", "/oapi/v1/projects/p", resolver).info;
  EXPECT_TRUE(info.is_resource_request);
  EXPECT_EQ(info.api_prefix, "oapi");
  EXPECT_EQ(info.api_group, "");
  EXPECT_EQ(info.resource, "projects");
  EXPECT_EQ(info.name, "p");
}

TEST(RequestInfoResolver, ResolveTakesPathAndParsedQuery) {
  const auto query = http::QueryParams::parse("watch=1&labelSelector=app%3Dweb");
  const auto [info, error] = RequestInfoResolver{}.resolve("GET", "/apis/apps/v1/namespaces/ns/deployments", query);
  EXPECT_FALSE(error.has_value());
  EXPECT_EQ(info.verb, "watch");
  EXPECT_EQ(info.api_group, "apps");
  EXPECT_EQ(info.label_selector, "app=web");
}

}  // namespace
}  // namespace kapi::request::request_info_resolver_test
