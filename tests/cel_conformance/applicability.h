#pragma once
// Which of cel-spec's simple conformance tests apply to kapi: kube compiles CEL without protobuf messages, without
// a container and without partial evaluation, so tests that need those say nothing about kapi's engine. The rules
// are structural (see tests/data/cel-spec/README.md) plus a list of named exceptions with their reasons
// (tests/data/cel-spec/not_applicable.txt), such as the tests cel-go v0.22 itself skips.
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cel/expr/conformance/test/simple.pb.h"

namespace kapi::cel::conformance {

class Applicability {
 public:
  // Reads the exceptions file: one `file/section[/test]  reason` per line, '#' starts a comment.
  // Throws std::runtime_error when the file cannot be read or a line has no reason.
  static Applicability load(const std::filesystem::path& exceptions_file);

  // Why the test does not apply to kapi, or nullopt when it does. id is "file/section/test".
  std::optional<std::string> not_applicable_reason(const std::string& id,
                                                   const ::cel::expr::conformance::test::SimpleTest& test) const;

  // The exceptions that name none of these test ids (stale entries to remove).
  std::vector<std::string> unused_exceptions(const std::vector<std::string>& ids) const;

 private:
  std::map<std::string, std::string, std::less<>> exceptions_;  // id or id prefix -> reason
};

}  // namespace kapi::cel::conformance
