#include "server/schema/patch_schema.h"

#include <unordered_map>

namespace kapi::schema {

namespace pb = google::protobuf;

// One node: an object of a message's fields, a list of elements, or a map of values.
class PatchSchemas::Node final : public patch::PatchSchema {
 public:
  enum class Shape { kObject, kList, kMap };
  struct Member {
    const Node* schema = nullptr;  // nullptr: a primitive or free-form value
    patch::PatchMeta meta;
  };

  Node(Shape shape, std::string name) : shape_(shape), name_(std::move(name)) {}

  const patch::PatchSchema* field(std::string_view name, patch::PatchMeta* meta) const override {
    if (meta) *meta = {};
    if (shape_ == Shape::kMap) return child_;
    if (shape_ != Shape::kObject) return nullptr;
    auto found = members_.find(std::string(name));
    if (found == members_.end()) return nullptr;
    if (meta) *meta = found->second.meta;
    return found->second.schema;
  }
  const patch::PatchSchema* elements() const override { return shape_ == Shape::kList ? child_ : nullptr; }
  std::string_view name() const override { return name_; }

  Shape shape_;
  std::string name_;
  std::unordered_map<std::string, Member> members_;
  const Node* child_ = nullptr;
};

PatchSchemas::PatchSchemas(const Catalog& catalog) : catalog_(catalog) {
  for (const pb::Descriptor* message : catalog.messages()) node_for(message);
}
PatchSchemas::~PatchSchemas() = default;

const patch::PatchSchema* PatchSchemas::of(const pb::Descriptor* message) const {
  if (!message) return nullptr;
  auto found = messages_.find(message);
  return found == messages_.end() ? nullptr : found->second.get();
}

const PatchSchemas::Node* PatchSchemas::node_for(const pb::Descriptor* message) {
  if (Catalog::special(message) != Special::kNone) return nullptr;  // strings, numbers or free-form JSON
  auto found = messages_.find(message);
  if (found != messages_.end()) return found->second.get();
  Node* node = messages_.emplace(message, std::make_unique<Node>(Node::Shape::kObject, message->name()))
                   .first->second.get();
  for (const pb::FieldDescriptor* field : catalog_.json_fields(message)) {
    const Markers& markers = catalog_.markers(field);
    Node::Member member;
    member.meta = {markers.patch_strategy, markers.patch_merge_key};
    const pb::Descriptor* type = field->message_type();
    if (field->is_map()) {
      auto map = std::make_unique<Node>(Node::Shape::kMap, "");
      const pb::FieldDescriptor* value = field->message_type()->map_value();
      map->child_ = value->message_type() ? node_for(value->message_type()) : nullptr;
      member.schema = containers_.emplace_back(std::move(map)).get();
    } else if (field->is_repeated()) {
      auto list = std::make_unique<Node>(Node::Shape::kList, "");
      list->child_ = type ? node_for(type) : nullptr;
      member.schema = containers_.emplace_back(std::move(list)).get();
    } else if (type) {
      member.schema = node_for(type);
    }
    node->members_.emplace(field->name(), std::move(member));
  }
  return node;
}

}  // namespace kapi::schema
