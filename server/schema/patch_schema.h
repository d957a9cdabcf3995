#pragma once
// Strategic merge patch metadata from the type schemas: what kube reads from Go struct tags through
// strategicpatch.LookupPatchMeta, read here from the +patchStrategy/+patchMergeKey markers. The tree of every
// type is built once, at construction, so a patch only reads immutable nodes (from any thread).
#include "server/patch/patch_schema.h"
#include "server/schema/catalog.h"

#include <map>
#include <memory>

namespace kapi::schema {

class PatchSchemas {
 public:
  explicit PatchSchemas(const Catalog& catalog);
  ~PatchSchemas();
  PatchSchemas(const PatchSchemas&) = delete;
  PatchSchemas& operator=(const PatchSchemas&) = delete;

  // The schema of objects of `message`; nullptr for a message the catalog does not have.
  const patch::PatchSchema* of(const google::protobuf::Descriptor* message) const;

 private:
  class Node;
  const Node* node_for(const google::protobuf::Descriptor* message);

  const Catalog& catalog_;
  std::map<const google::protobuf::Descriptor*, std::unique_ptr<Node>> messages_;
  std::vector<std::unique_ptr<Node>> containers_;  // list and map nodes, owned here
};

}  // namespace kapi::schema
