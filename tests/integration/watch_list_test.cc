// Streaming lists (KEP-3157, WatchList, on by default in kube-apiserver 1.32): a watch with sendInitialEvents=true
// and resourceVersionMatch=NotOlderThan starts with the current state as ADDED events and, when it asked for
// bookmarks, a BOOKMARK annotated k8s.io/initial-events-end at the state's resourceVersion; then changes follow.
// client-go's reflector sends exactly that, first without a resourceVersion (a consistent state). The ListOptions
// of a list or watch are validated as kube's ValidateListOptions does, 422 Invalid ListOptions.meta.k8s.io.
#include "tests/integration/kapi_suite.h"

#include <string>
#include <vector>

namespace kapi::integration::watch_list_test {
namespace {

using namespace std::chrono_literals;
namespace json = boost::json;

class WatchListTest : public KapiSuite<WatchListTest> {
 protected:
  void create_configmaps(const std::string& ns, const std::vector<std::string>& names) {
    auto connection = kapi().connect_admin();
    const std::string namespace_body = R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":")" + ns + R"("}})";
    ASSERT_EQ(connection.request("POST", "/api/v1/namespaces", {{"Content-Type", "application/json"}}, namespace_body)
                  .status, 201);
    for (const auto& name : names) create_configmap(ns, name);
  }
  void create_configmap(const std::string& ns, const std::string& name) {
    const std::string body = R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":")" + name + R"("}})";
    const HttpResponse created = kapi().connect_admin().request(
        "POST", "/api/v1/namespaces/" + ns + "/configmaps", {{"Content-Type", "application/json"}}, body);
    ASSERT_EQ(created.status, 201) << created.body;
  }

  // "TYPE name" for each event of the test's ConfigMaps (cm-*: not the namespace's kube-root-ca.crt), and
  // "BOOKMARK <annotations>" for a bookmark, read until `until` is one of them.
  static std::vector<std::string> events_until(HttpConnection& watch, const std::string& until) {
    std::vector<std::string> events;
    while (events.empty() || events.back() != until) {
      const auto chunk = watch.read_chunk(10s);
      if (!chunk) {
        ADD_FAILURE() << "the watch ended before " << until;
        break;
      }
      const json::object event = json_object(*chunk);
      const std::string type(event.at("type").as_string());
      const json::object& metadata = event.at("object").at("metadata").as_object();
      if (type == "BOOKMARK") {
        const json::value* annotations = metadata.if_contains("annotations");
        events.push_back("BOOKMARK " + (annotations ? json::serialize(*annotations) : std::string("{}")));
        continue;
      }
      const std::string name(metadata.at("name").as_string());
      if (name.starts_with("cm-")) events.push_back(type + " " + name);
    }
    return events;
  }
};

TEST_F(WatchListTest, TheInitialStateEndsWithABookmarkWhenBookmarksWereAskedFor) {
  const std::string ns = "watch-list";
  create_configmaps(ns, {"cm-a", "cm-b"});
  const std::string collection = "/api/v1/namespaces/" + ns + "/configmaps";

  // As client-go's reflector asks (no resourceVersion: the state is a consistent read).
  HttpConnection streamed = kapi().connect_admin();
  streamed.send("GET " + collection +
                "?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true "
                "HTTP/1.1\r\nHost: kapi\r\n\r\n");
  ASSERT_EQ(streamed.read_head().status, 200);
  const std::string end = R"(BOOKMARK {"k8s.io/initial-events-end":"true"})";
  EXPECT_EQ(events_until(streamed, end), (std::vector<std::string>{"ADDED cm-a", "ADDED cm-b", end}));
  create_configmap(ns, "cm-c");
  EXPECT_EQ(events_until(streamed, "ADDED cm-c"), std::vector<std::string>{"ADDED cm-c"});

  // Without allowWatchBookmarks kube sends no bookmark, that one included.
  HttpConnection plain = kapi().connect_admin();
  plain.send("GET " + collection + "?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan "
             "HTTP/1.1\r\nHost: kapi\r\n\r\n");
  ASSERT_EQ(plain.read_head().status, 200);
  EXPECT_EQ(events_until(plain, "ADDED cm-c"), (std::vector<std::string>{"ADDED cm-a", "ADDED cm-b", "ADDED cm-c"}));
  create_configmap(ns, "cm-d");
  EXPECT_EQ(events_until(plain, "ADDED cm-d"), std::vector<std::string>{"ADDED cm-d"});
}

TEST_F(WatchListTest, ListOptionsAreValidatedAsKubeValidatesThem) {
  const auto invalid = [this](const std::string& query) {
    const HttpResponse response = kapi().connect_admin().request("GET", "/api/v1/namespaces/default/configmaps?" + query);
    EXPECT_EQ(response.status, 422) << query << ": " << response.body;
    json::object status = json_object(response.body);
    EXPECT_EQ(status["reason"], "Invalid") << response.body;
    EXPECT_EQ(status["details"].as_object()["kind"], "ListOptions") << response.body;
    EXPECT_EQ(status["details"].as_object()["group"], "meta.k8s.io") << response.body;
    return std::string(status["message"].as_string());
  };
  // A list takes no sendInitialEvents, even false (a client generated from 1.32's OpenAPI may send it).
  EXPECT_EQ(invalid("sendInitialEvents=false"),
            R"(ListOptions.meta.k8s.io "" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list)");
  EXPECT_EQ(invalid("resourceVersionMatch=NotOlderThan"),
            R"(ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided)");
  EXPECT_EQ(invalid("resourceVersionMatch=Exact&resourceVersion=0"),
            R"(ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0")");
  EXPECT_EQ(invalid("resourceVersionMatch=Newest&resourceVersion=5"),
            R"(ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Unsupported value: "Newest": supported values: "Exact", "NotOlderThan", "")");
  // A watch takes resourceVersionMatch only with sendInitialEvents, and then only NotOlderThan.
  EXPECT_EQ(invalid("watch=1&resourceVersionMatch=NotOlderThan&resourceVersion=5"),
            R"(ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided)");
  EXPECT_EQ(invalid("watch=1&sendInitialEvents=true"),
            R"(ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan)");
  EXPECT_EQ(invalid("watch=1&sendInitialEvents=true&resourceVersionMatch=Exact"),
            R"(ListOptions.meta.k8s.io "" is invalid: [resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan, resourceVersionMatch: Unsupported value: "Exact": supported values: "NotOlderThan"])");
}

}  // namespace
}  // namespace kapi::integration::watch_list_test
