#pragma once
// What the two front ends of type_converter.h share: the types kube-openapi's schemaconv adds to every schema, its
// error collection, and the catalog's messages as named types (a custom resource's schema needs ObjectMeta's).
#include "server/schema/catalog.h"
#include "server/structured_merge/schema.h"

#include <google/protobuf/descriptor.h>

#include <string>
#include <unordered_map>
#include <vector>

namespace kapi::fieldmanager::internal {

// The types of one schema under construction, with the unnamed ones every field may share (schemaconv inlines a
// copy per field; one copy each behaves the same, since nothing refers to a type's identity).
class TypeBuilder {
 public:
  explicit TypeBuilder(structured_merge::Schema& schema);

  structured_merge::Schema& schema() { return schema_; }
  structured_merge::TypeRef deduced() const { return schema_.deduced(); }
  // "__untyped_atomic_": any value, owned whole (schemaconv's untypedDef).
  structured_merge::TypeRef untyped_atomic() const { return untyped_atomic_; }
  structured_merge::TypeRef scalar(structured_merge::ScalarKind kind) const;

  // An inline map/list/struct type added to the schema.
  structured_merge::TypeDef& add(structured_merge::TypeDef type) { return schema_.add(std::move(type)); }

  // `type` with its map's relationship overridden (schemaconv: x-kubernetes-map-type beside a $ref, resolved as
  // smd's Schema.Resolve copies the map). Made once every named type is complete: see resolve_overrides.
  void override_relationship(structured_merge::TypeRef* slot, const structured_merge::TypeDef* type,
                             structured_merge::ElementRelationship relationship);
  void resolve_overrides();

  // schemaconv's reportError: "<where>: <what>", all joined by "\n" into NewTypeConverter's error.
  void report(const std::string& where, const std::string& what) { errors_.push_back(where + ": " + what); }
  // Throws std::invalid_argument with kube's text when anything was reported.
  void throw_if_errors() const;

 private:
  struct Override {
    structured_merge::TypeRef* slot;
    const structured_merge::TypeDef* type;
    structured_merge::ElementRelationship relationship;
  };

  structured_merge::Schema& schema_;
  structured_merge::TypeRef untyped_atomic_ = nullptr;
  structured_merge::TypeRef numeric_ = nullptr;
  structured_merge::TypeRef string_ = nullptr;
  structured_merge::TypeRef boolean_ = nullptr;
  structured_merge::TypeRef untyped_scalar_ = nullptr;
  std::vector<Override> overrides_;
  std::vector<std::string> errors_;
};

// The catalog's messages as named types, converted on first use (with whatever they reference).
class CatalogTypes {
 public:
  CatalogTypes(const schema::Catalog& catalog, TypeBuilder& types) : catalog_(catalog), types_(types) {}

  structured_merge::TypeRef named(const google::protobuf::Descriptor* message);

 private:
  structured_merge::TypeDef special_def(schema::Special special) const;
  std::vector<structured_merge::StructField> struct_fields(const google::protobuf::Descriptor* message,
                                                           std::vector<const google::protobuf::FieldDescriptor*>& descriptors);
  boost::json::value default_of(const google::protobuf::FieldDescriptor* field) const;
  // The type of `field`'s value; `slot` receives it (a relationship override may replace it later).
  void field_type(const google::protobuf::FieldDescriptor* field, structured_merge::TypeRef& slot);
  structured_merge::TypeRef element_type(const google::protobuf::FieldDescriptor* field);
  structured_merge::TypeRef list_type(const google::protobuf::FieldDescriptor* field);

  const schema::Catalog& catalog_;
  TypeBuilder& types_;
  std::unordered_map<const google::protobuf::Descriptor*, structured_merge::TypeDef*> named_;
  structured_merge::TypeRef string_list_ = nullptr;
};

}  // namespace kapi::fieldmanager::internal
