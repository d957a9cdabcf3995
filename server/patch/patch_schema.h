#pragma once
// The schema metadata strategic merge patch reads: what kube takes from Go struct tags
// (`patchStrategy:"merge" patchMergeKey:"name"`) through strategicpatch.LookupPatchMeta. The type-schema module
// implements PatchSchema for every kind; MapPatchSchema is a small hand-built one for tests and early callers.
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kapi::patch {

struct PatchMeta {
  // "", "merge", "replace", "retainKeys" or "merge,retainKeys": the struct tag, comma-separated as in Go.
  std::string strategy;
  // The field that identifies an element of a merged list of objects, e.g. "name" for containers.
  std::string merge_key;
};

// One node of a type schema: an object (named fields), a list (elements) or a map (values under any key).
class PatchSchema {
 public:
  virtual ~PatchSchema() = default;
  // The schema of field `name` and its patch metadata; a map answers every key with its value schema and empty
  // metadata. nullptr: a primitive, an unknown or a free-form field, which merges like a JSON merge patch.
  virtual const PatchSchema* field(std::string_view name, PatchMeta* meta) const = 0;
  // The schema of this list's elements; nullptr for primitives, unknown or free-form elements.
  virtual const PatchSchema* elements() const = 0;
  // The type's name for error messages ("Container"); may be empty.
  virtual std::string_view name() const { return {}; }
};

// An immutable schema tree built from nested initializers; copies share their children.
//   auto container = MapPatchSchema::object("Container", {
//       {"ports", MapPatchSchema::list(port), {"merge", "containerPort"}},
//       {"args", MapPatchSchema::list()}});
class MapPatchSchema final : public PatchSchema {
 public:
  struct Field {
    Field(std::string field_name, PatchMeta field_meta = {}) : name(std::move(field_name)), meta(std::move(field_meta)) {}
    Field(std::string field_name, MapPatchSchema field_schema, PatchMeta field_meta = {});
    Field(const char* field_name, PatchMeta field_meta = {}) : Field(std::string(field_name), std::move(field_meta)) {}
    Field(const char* field_name, MapPatchSchema field_schema, PatchMeta field_meta = {});

    std::string name;
    PatchMeta meta;
    std::shared_ptr<const MapPatchSchema> schema;  // nullptr: primitive or free-form
  };

  static MapPatchSchema object(std::string type_name, std::initializer_list<Field> fields) {
    MapPatchSchema schema(Kind::kObject, std::move(type_name));
    schema.fields_.assign(fields.begin(), fields.end());
    return schema;
  }
  static MapPatchSchema object(std::initializer_list<Field> fields) { return object("", fields); }
  // A list of objects of `element`'s schema.
  static MapPatchSchema list(MapPatchSchema element) {
    MapPatchSchema schema(Kind::kList, "");
    schema.child_ = std::make_shared<const MapPatchSchema>(std::move(element));
    return schema;
  }
  // A list of primitives.
  static MapPatchSchema list() { return MapPatchSchema(Kind::kList, ""); }
  // A map from any key to values of `value`'s schema.
  static MapPatchSchema map(MapPatchSchema value) {
    MapPatchSchema schema(Kind::kMap, "");
    schema.child_ = std::make_shared<const MapPatchSchema>(std::move(value));
    return schema;
  }
  // A map of primitives (labels, annotations).
  static MapPatchSchema map() { return MapPatchSchema(Kind::kMap, ""); }

  const PatchSchema* field(std::string_view field_name, PatchMeta* meta) const override {
    if (meta) *meta = {};
    if (kind_ == Kind::kMap) return child_.get();
    if (kind_ != Kind::kObject) return nullptr;
    for (const Field& f : fields_) {
      if (f.name != field_name) continue;
      if (meta) *meta = f.meta;
      return f.schema.get();
    }
    return nullptr;
  }
  const PatchSchema* elements() const override { return kind_ == Kind::kList ? child_.get() : nullptr; }
  std::string_view name() const override { return name_; }

 private:
  enum class Kind { kObject, kList, kMap };
  MapPatchSchema(Kind kind, std::string type_name) : kind_(kind), name_(std::move(type_name)) {}

  Kind kind_;
  std::string name_;
  std::vector<Field> fields_;
  std::shared_ptr<const MapPatchSchema> child_;
};

inline MapPatchSchema::Field::Field(std::string field_name, MapPatchSchema field_schema, PatchMeta field_meta)
    : name(std::move(field_name)),
      meta(std::move(field_meta)),
      schema(std::make_shared<const MapPatchSchema>(std::move(field_schema))) {}

inline MapPatchSchema::Field::Field(const char* field_name, MapPatchSchema field_schema, PatchMeta field_meta)
    : Field(std::string(field_name), std::move(field_schema), std::move(field_meta)) {}

}  // namespace kapi::patch
