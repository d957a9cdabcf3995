// keep_comments <in.desc> <out.desc>: the descriptor set with only the source locations that carry a leading
// comment (a message's or field's description and markers, which Catalog reads once at start-up). protoc's
// --include_source_info also records a location, with its span, for every name, number, type and label of every
// field: three quarters of the set, parsed and built into the pool at every start for nothing.
#include <google/protobuf/descriptor.pb.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: keep_comments <in.desc> <out.desc>\n";
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  const std::string serialized{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  google::protobuf::FileDescriptorSet set;
  if (!in || !set.ParseFromString(serialized)) {
    std::cerr << "keep_comments: " << argv[1] << " is no descriptor set\n";
    return 1;
  }
  for (google::protobuf::FileDescriptorProto& file : *set.mutable_file()) {
    auto* locations = file.mutable_source_code_info()->mutable_location();
    locations->erase(std::remove_if(locations->begin(), locations->end(),
                                    [](const auto& location) { return location.leading_comments().empty(); }),
                     locations->end());
  }
  std::ofstream out(argv[2], std::ios::binary);
  if (!set.SerializeToOstream(&out)) {
    std::cerr << "keep_comments: cannot write " << argv[2] << "\n";
    return 1;
  }
  return 0;
}
