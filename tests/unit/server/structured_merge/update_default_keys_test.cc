// Ported from structured-merge-diff v4.4.2's merge/default_keys_test.go: map-list items that omit a key field with
// a default are keyed by the default.
#include "tests/unit/server/structured_merge/update_test_schemas.h"

#include <gtest/gtest.h>

#include <string>

namespace kapi::structured_merge::testing::update_default_keys_test {
namespace {

// apply_missing_defaulted_key_A
TEST(SmdDefaultKeysFlatTest, ApplyMissingDefaultedKeyA) {
  TestCase test;
  test.ops = {
      Apply{"default", "v1", R"(
          containerPorts:
          - port: 80
        )"},
  };
  test.object = R"(
    containerPorts:
    - port: 80
  )";
  test.api_version = "v1";
  test.managed =
      ManagedFields{{"default", VersionedSet{NS(P("containerPorts", KBF("port", 80, "protocol", "TCP")),
                                                P("containerPorts", KBF("port", 80, "protocol", "TCP"), "port")),
                                             "v1", false}}};
  run(test, port_list_parser());
}

// apply_missing_defaulted_key_B
TEST(SmdDefaultKeysFlatTest, ApplyMissingDefaultedKeyB) {
  TestCase test;
  test.ops = {
      Apply{"default", "v1", R"(
          containerPorts:
          - port: 80
          - port: 80
            protocol: UDP
        )"},
  };
  test.object = R"(
    containerPorts:
    - port: 80
    - port: 80
      protocol: UDP
  )";
  test.api_version = "v1";
  test.managed =
      ManagedFields{{"default", VersionedSet{NS(P("containerPorts", KBF("port", 80, "protocol", "TCP")),
                                                P("containerPorts", KBF("port", 80, "protocol", "TCP"), "port"),
                                                P("containerPorts", KBF("port", 80, "protocol", "UDP")),
                                                P("containerPorts", KBF("port", 80, "protocol", "UDP"), "port"),
                                                P("containerPorts", KBF("port", 80, "protocol", "UDP"), "protocol")),
                                             "v1", false}}};
  run(test, port_list_parser());
}

// apply_missing_defaulted_key_with_conflict
TEST(SmdDefaultKeysFlatTest, ApplyMissingDefaultedKeyWithConflict) {
  TestCase test;
  test.ops = {
      Apply{"apply-one", "v1", R"(
          containerPorts:
          - port: 80
            protocol: TCP
            name: foo
        )"},
      Apply{"apply-two", "v1", R"(
          containerPorts:
          - port: 80
            name: bar
        )",
            std::vector<Conflict>{
                Conflict{"apply-one", P("containerPorts", KBF("port", 80, "protocol", "TCP"), "name")}}},
  };
  test.object = R"(
    containerPorts:
    - port: 80
      protocol: TCP
      name: foo
  )";
  test.api_version = "v1";
  test.managed =
      ManagedFields{{"apply-one", VersionedSet{NS(P("containerPorts", KBF("port", 80, "protocol", "TCP")),
                                                  P("containerPorts", KBF("port", 80, "protocol", "TCP"), "port"),
                                                  P("containerPorts", KBF("port", 80, "protocol", "TCP"), "protocol"),
                                                  P("containerPorts", KBF("port", 80, "protocol", "TCP"), "name")),
                                               "v1", false}}};
  run(test, port_list_parser());
}

// apply_missing_undefaulted_defaulted_key
TEST(SmdDefaultKeysFlatErrorsTest, ApplyMissingUndefaultedDefaultedKey) {
  TestCase test;
  test.ops = {
      Apply{"default", "v1", R"(
          containerPorts:
          - protocol: TCP
        )"},
  };
  std::string error;
  EXPECT_FALSE(run(test, port_list_parser(), &error));
}

// apply_missing_defaulted_key_ambiguous_A
TEST(SmdDefaultKeysFlatErrorsTest, ApplyMissingDefaultedKeyAmbiguousA) {
  TestCase test;
  test.ops = {
      Apply{"default", "v1", R"(
          containerPorts:
          - port: 80
          - port: 80
        )"},
  };
  std::string error;
  EXPECT_FALSE(run(test, port_list_parser(), &error));
}

// apply_missing_defaulted_key_ambiguous_B
TEST(SmdDefaultKeysFlatErrorsTest, ApplyMissingDefaultedKeyAmbiguousB) {
  TestCase test;
  test.ops = {
      Apply{"default", "v1", R"(
          containerPorts:
          - port: 80
          - port: 80
            protocol: TCP
        )"},
  };
  std::string error;
  EXPECT_FALSE(run(test, port_list_parser(), &error));
}

// apply_missing_every_key_nested
TEST(SmdDefaultKeysNestedTest, ApplyMissingEveryKeyNested) {
  TestCase test;
  test.ops = {
      Apply{"default", "v1", R"(
          book:
          - sentences:
            - text: blah
        )"},
  };
  test.object = R"(
    book:
    - sentences:
      - text: blah
  )";
  test.api_version = "v1";
  test.managed = ManagedFields{
      {"default",
       VersionedSet{NS(P("book", KBF("chapter", 1, "section", "A")),
                       P("book", KBF("chapter", 1, "section", "A"), "sentences", KBF("page", 2, "line", 3)),
                       P("book", KBF("chapter", 1, "section", "A"), "sentences", KBF("page", 2, "line", 3), "text")),
                    "v1", false}}};
  run(test, book_parser());
}

// apply_integer_key_with_float_default
TEST(SmdDefaultKeysNestedTest, ApplyIntegerKeyWithFloatDefault) {
  TestCase test;
  test.ops = {
      Apply{"default", "v1", R"(
          book:
          - sentences:
            - text: blah
        )"},
      Apply{"default", "v1", R"(
          book:
          - sentences:
            - text: blah
              page: 2
        )"},
  };
  test.object = R"(
    book:
    - sentences:
      - text: blah
        page: 2
  )";
  test.api_version = "v1";
  test.managed = ManagedFields{
      {"default",
       VersionedSet{NS(P("book", KBF("chapter", 1, "section", "A")),
                       P("book", KBF("chapter", 1, "section", "A"), "sentences", KBF("page", 2, "line", 3)),
                       P("book", KBF("chapter", 1, "section", "A"), "sentences", KBF("page", 2, "line", 3), "text"),
                       P("book", KBF("chapter", 1, "section", "A"), "sentences", KBF("page", 2, "line", 3), "page")),
                    "v1", false}}};
  run(test, book_parser());
}

}  // namespace
}  // namespace kapi::structured_merge::testing::update_default_keys_test
