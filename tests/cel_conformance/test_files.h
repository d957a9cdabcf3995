#pragma once
// Reading cel-spec's simple test files (text protos of cel.expr.conformance.test.SimpleTestFile).
#include <filesystem>
#include <string>
#include <vector>

#include "cel/expr/conformance/test/simple.pb.h"

namespace kapi::cel::conformance {

std::string read_text_file(const std::filesystem::path& path);  // throws std::runtime_error

// Every *.textproto in dir, by file name. Throws std::runtime_error when one does not parse.
std::vector<::cel::expr::conformance::test::SimpleTestFile> load_test_files(const std::filesystem::path& dir);

}  // namespace kapi::cel::conformance
