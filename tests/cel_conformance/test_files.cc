// Test files are read with protobuf's TextFormat, as cel-go's runner reads them with prototext. Their Any values
// name cel-spec's test messages, whose descriptors are embedded (see meson.build) rather than compiled to C++.
#include "tests/cel_conformance/test_files.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/descriptor.pb.h>
#include <google/protobuf/text_format.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace kapi::cel::conformance {

extern const unsigned char kTestMessageDescriptorSet[];
extern const std::size_t kTestMessageDescriptorSetSize;

namespace {

namespace pb = google::protobuf;

// Any types: the messages linked into the binary (Timestamp, Duration, ...), else cel-spec's test messages.
class AnyTypeFinder final : public pb::TextFormat::Finder {
 public:
  AnyTypeFinder() {
    pb::FileDescriptorSet set;
    if (!set.ParseFromArray(kTestMessageDescriptorSet, static_cast<int>(kTestMessageDescriptorSetSize))) {
      throw std::runtime_error("the embedded descriptors of cel-spec's test messages do not parse");
    }
    for (const pb::FileDescriptorProto& file : set.file()) {
      if (!test_messages_.BuildFile(file)) throw std::runtime_error("cannot build descriptors of " + file.name());
    }
  }

  const pb::Descriptor* FindAnyType(const pb::Message&, const std::string& prefix,
                                    const std::string& name) const override {
    if (prefix != "type.googleapis.com/" && prefix != "type.googleprod.com/") return nullptr;
    if (const pb::Descriptor* linked = pb::DescriptorPool::generated_pool()->FindMessageTypeByName(name)) {
      return linked;
    }
    return test_messages_.FindMessageTypeByName(name);
  }

 private:
  pb::DescriptorPool test_messages_;
};

}  // namespace

std::string read_text_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<::cel::expr::conformance::test::SimpleTestFile> load_test_files(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> paths;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() == ".textproto") paths.push_back(entry.path());
  }
  std::sort(paths.begin(), paths.end());
  if (paths.empty()) throw std::runtime_error("no .textproto files in " + dir.string());

  AnyTypeFinder finder;
  pb::TextFormat::Parser parser;
  parser.SetFinder(&finder);
  std::vector<::cel::expr::conformance::test::SimpleTestFile> files;
  for (const auto& path : paths) {
    ::cel::expr::conformance::test::SimpleTestFile file;
    if (!parser.ParseFromString(read_text_file(path), &file)) {
      throw std::runtime_error("cannot parse " + path.string() + " as cel.expr.conformance.test.SimpleTestFile");
    }
    files.push_back(std::move(file));
  }
  return files;
}

}  // namespace kapi::cel::conformance
