// Built-in kinds: the catalog's messages as kube-openapi's schemaconv (ToSchemaFromOpenAPI) converts their OpenAPI v3
// definitions, which server/schema/openapi.cc writes from the same markers.
#include "server/fieldmanager/type_converter.h"

#include "server/fieldmanager/type_converter_internal.h"

#include <boost/json/parse.hpp>
#include <google/protobuf/descriptor.pb.h>

#include <algorithm>
#include <stdexcept>

namespace kapi::fieldmanager {
namespace internal {

namespace pb = google::protobuf;
namespace sm = structured_merge;
using schema::Catalog;
using schema::Markers;
using schema::Special;

namespace {

// Where schemaconv reports a problem of a field's own (inline) schema.
std::string inlined_in(const pb::FieldDescriptor* field) {
  return "inlined in " + Catalog::openapi_name(field->containing_type());
}

sm::TypeDef scalar_def(sm::ScalarKind kind) {
  sm::TypeDef def;
  def.scalar = true;
  def.scalar_kind = kind;
  return def;
}

}  // namespace

TypeBuilder::TypeBuilder(sm::Schema& schema) : schema_(schema) {
  // schemaconv's addCommonTypes: the deduced type (which the Schema holds) and the untyped atomic one.
  sm::TypeDef untyped_def = scalar_def(sm::ScalarKind::kUntyped);
  untyped_def.name = "__untyped_atomic_";  // named before it is added, to be found by name
  sm::TypeDef& untyped = schema_.add(std::move(untyped_def));
  untyped.list = untyped.map = true;
  untyped.list_element = untyped.map_element = &untyped;
  untyped.list_relationship = untyped.map_relationship = sm::ElementRelationship::kAtomic;
  untyped_atomic_ = &untyped;
  numeric_ = &schema_.add(scalar_def(sm::ScalarKind::kNumeric));
  string_ = &schema_.add(scalar_def(sm::ScalarKind::kString));
  boolean_ = &schema_.add(scalar_def(sm::ScalarKind::kBoolean));
  untyped_scalar_ = &schema_.add(scalar_def(sm::ScalarKind::kUntyped));
}

sm::TypeRef TypeBuilder::scalar(sm::ScalarKind kind) const {
  switch (kind) {
    case sm::ScalarKind::kNumeric: return numeric_;
    case sm::ScalarKind::kString: return string_;
    case sm::ScalarKind::kBoolean: return boolean_;
    case sm::ScalarKind::kUntyped: break;
  }
  return untyped_scalar_;
}

void TypeBuilder::override_relationship(sm::TypeRef* slot, const sm::TypeDef* type,
                                        sm::ElementRelationship relationship) {
  overrides_.push_back({slot, type, relationship});
}

void TypeBuilder::resolve_overrides() {
  for (const Override& wanted : overrides_) {
    const sm::TypeDef& type = *wanted.type;
    // smd overrides a map's relationship, else a list's; a scalar does not resolve (kube fails at use, not here).
    if (!type.map && !type.list) continue;
    sm::TypeDef copy = type;
    copy.name.clear();
    if (copy.map) copy.map_relationship = wanted.relationship;
    else copy.list_relationship = wanted.relationship;
    // The copy's fields are already sorted, and a self-reference keeps pointing at the original, as in smd.
    *wanted.slot = &schema_.add(std::move(copy));
  }
  overrides_.clear();
}

void TypeBuilder::throw_if_errors() const {
  if (errors_.empty()) return;
  std::string joined;
  for (const auto& error : errors_) {
    if (!joined.empty()) joined += '\n';
    joined += error;
  }
  throw std::invalid_argument("failed to convert models to schema: " + joined);
}

sm::TypeRef CatalogTypes::named(const pb::Descriptor* message) {
  if (auto found = named_.find(message); found != named_.end()) return found->second;
  const Special special = Catalog::special(message);
  if (special == Special::kStringList) {
    // Go's []string given a message of its own: kube's OpenAPI inlines the array, atomic.
    if (!string_list_) {
      sm::TypeDef list;
      list.list = true;
      list.list_element = types_.scalar(sm::ScalarKind::kString);
      string_list_ = &types_.add(std::move(list));
    }
    return string_list_;
  }
  sm::TypeDef& def = types_.add(sm::TypeDef{.name = Catalog::openapi_name(message)});
  // Registered before its fields are converted: recursive types (JSONSchemaProps) end here.
  named_.emplace(message, &def);
  if (special != Special::kNone) {
    sm::TypeDef made = special_def(special);
    made.name = std::move(def.name);
    def = std::move(made);
    return &def;
  }
  def.map = true;
  // Fields placed first, sorted, then typed in place: an override keeps pointing at its field.
  std::vector<const pb::FieldDescriptor*> descriptors;
  def.fields = struct_fields(message, descriptors);
  for (std::size_t i = 0; i < def.fields.size(); ++i)
    if (descriptors[i]) field_type(descriptors[i], def.fields[i].type);
  // An object without properties is free-form: its members are deduced.
  if (def.fields.empty()) def.map_element = types_.deduced();
  if (catalog_.markers(message).struct_type == "atomic") def.map_relationship = sm::ElementRelationship::kAtomic;
  return &def;
}

// The definitions kube's OpenAPI gives the messages whose JSON is not an object of their fields, as schemaconv
// reads them (a string with a format other than "byte" is an untyped scalar; Quantity and RawExtension are
// hard-coded by name).
sm::TypeDef CatalogTypes::special_def(Special special) const {
  switch (special) {
    case Special::kTime:
    case Special::kMicroTime:      // string, format date-time
    case Special::kIntOrString:    // string, format int-or-string
    case Special::kQuantity: return *types_.scalar(sm::ScalarKind::kUntyped);
    case Special::kDuration: return *types_.scalar(sm::ScalarKind::kString);
    case Special::kRawExtension: return *types_.untyped_atomic();
    case Special::kFieldsV1: {
      // {"type": "object"} without properties.
      sm::TypeDef fields;
      fields.map = true;
      fields.map_element = types_.deduced();
      return fields;
    }
    case Special::kStringList:
    case Special::kNone: break;
  }
  throw std::logic_error("not a special message");
}

// The struct's members sorted by name with the field behind each (none for apiVersion and kind, Go's inline
// TypeMeta), their types left to fill in place.
std::vector<sm::StructField> CatalogTypes::struct_fields(const pb::Descriptor* message,
                                                        std::vector<const pb::FieldDescriptor*>& descriptors) {
  std::vector<std::pair<sm::StructField, const pb::FieldDescriptor*>> members;
  if (Catalog::has_type_meta(message)) {
    members.push_back({{.name = "apiVersion", .type = types_.scalar(sm::ScalarKind::kString)}, nullptr});
    members.push_back({{.name = "kind", .type = types_.scalar(sm::ScalarKind::kString)}, nullptr});
  }
  for (const pb::FieldDescriptor* field : catalog_.json_fields(message)) {
    members.emplace_back(sm::StructField{.name = field->name(), .default_value = default_of(field)}, field);
  }
  std::sort(members.begin(), members.end(), [](const auto& a, const auto& b) { return a.first.name < b.first.name; });
  std::vector<sm::StructField> fields;
  fields.reserve(members.size());
  descriptors.reserve(members.size());
  for (auto& [member, descriptor] : members) {
    fields.push_back(std::move(member));
    descriptors.push_back(descriptor);
  }
  return fields;
}

// The "default" kube's OpenAPI gives the field: its +default, else the zero value openapi-gen enforces for a
// scalar that Go always encodes (neither a pointer nor omitempty): a map-list item missing such a key field is
// keyed by it. (openapi-gen's {} for struct fields is left out: no list is keyed by a struct.)
boost::json::value CatalogTypes::default_of(const pb::FieldDescriptor* field) const {
  const Markers& markers = catalog_.markers(field);
  if (markers.default_json) {
    boost::json::error_code ec;
    boost::json::value value = boost::json::parse(*markers.default_json, ec);
    if (!ec) return value;
  }
  if (markers.omit_empty || markers.pointer || field->is_repeated()) return nullptr;
  switch (field->type()) {
    case pb::FieldDescriptor::TYPE_MESSAGE:
    case pb::FieldDescriptor::TYPE_GROUP:
    case pb::FieldDescriptor::TYPE_BYTES: return nullptr;  // []byte is a slice: no enforced default
    case pb::FieldDescriptor::TYPE_STRING: return boost::json::value("");
    case pb::FieldDescriptor::TYPE_BOOL: return boost::json::value(false);
    default: return boost::json::value(0);
  }
}

void CatalogTypes::field_type(const pb::FieldDescriptor* field, sm::TypeRef& slot) {
  const Markers& markers = catalog_.markers(field);
  if (field->is_map()) {
    sm::TypeDef map;
    map.map = true;
    map.map_element = element_type(field->message_type()->map_value());
    if (markers.map_type == "atomic") map.map_relationship = sm::ElementRelationship::kAtomic;
    else if (!markers.map_type.empty() && markers.map_type != "granular")
      types_.report(inlined_in(field), "unknown map type " + markers.map_type);
    slot = &types_.add(std::move(map));
    return;
  }
  if (field->is_repeated()) {
    slot = list_type(field);
    return;
  }
  slot = element_type(field);
  // A +mapType beside a reference overrides the referenced struct's relationship for this field.
  if (field->message_type() && !markers.map_type.empty()) {
    if (markers.map_type == "atomic" || markers.map_type == "granular") {
      types_.override_relationship(&slot, slot,
                                   markers.map_type == "atomic" ? sm::ElementRelationship::kAtomic
                                                                : sm::ElementRelationship::kSeparable);
    } else {
      types_.report(Catalog::openapi_name(field->containing_type()), "unknown map type " + markers.map_type);
    }
  }
}

sm::TypeRef CatalogTypes::element_type(const pb::FieldDescriptor* field) {
  switch (field->type()) {
    case pb::FieldDescriptor::TYPE_MESSAGE:
    case pb::FieldDescriptor::TYPE_GROUP: return named(field->message_type());
    case pb::FieldDescriptor::TYPE_STRING:
    case pb::FieldDescriptor::TYPE_BYTES: return types_.scalar(sm::ScalarKind::kString);  // bytes: format byte
    case pb::FieldDescriptor::TYPE_BOOL: return types_.scalar(sm::ScalarKind::kBoolean);
    default: return types_.scalar(sm::ScalarKind::kNumeric);
  }
}

// schemaconv's getListElementRelationship: x-kubernetes-list-type decides; without it, a "merge" patch strategy
// makes the list associative (keyed by the patch merge key, a set without one); anything else is atomic.
sm::TypeRef CatalogTypes::list_type(const pb::FieldDescriptor* field) {
  const Markers& markers = catalog_.markers(field);
  sm::TypeDef list;
  list.list = true;
  list.list_element = element_type(field);
  const std::string where = inlined_in(field);
  if (!markers.list_type.empty()) {
    if (markers.list_type == "set") {
      list.list_relationship = sm::ElementRelationship::kAssociative;
    } else if (markers.list_type == "map") {
      list.list_relationship = sm::ElementRelationship::kAssociative;
      list.keys = markers.list_map_keys;
      if (list.keys.empty()) types_.report(where, "missing map keys");
    } else if (markers.list_type != "atomic") {
      types_.report(where, "unknown list type " + markers.list_type);
    }
  } else if (!markers.patch_strategy.empty()) {
    if (markers.patch_strategy == "merge" || markers.patch_strategy == "merge,retainKeys") {
      list.list_relationship = sm::ElementRelationship::kAssociative;
      if (!markers.patch_merge_key.empty()) list.keys = {markers.patch_merge_key};
    } else if (markers.patch_strategy != "retainKeys") {
      types_.report(where, "unknown patch strategy " + markers.patch_strategy);
    }
  }
  return &types_.add(std::move(list));
}

}  // namespace internal

std::shared_ptr<const structured_merge::Schema> schema_from_catalog(const schema::Catalog& catalog) {
  auto schema = std::make_shared<structured_merge::Schema>();
  internal::TypeBuilder types(*schema);
  internal::CatalogTypes messages(catalog, types);
  for (const google::protobuf::Descriptor* message : catalog.messages())
    if (!message->options().map_entry()) messages.named(message);  // a map field's entries are no type of kube's
  types.resolve_overrides();
  types.throw_if_errors();
  return schema;
}

structured_merge::TypeRef kind_type(const structured_merge::Schema& schema, const schema::Catalog& catalog,
                                    std::string_view group, std::string_view version, std::string_view kind) {
  const google::protobuf::Descriptor* message = catalog.kind(group, version, kind);
  return message ? schema.find(schema::Catalog::openapi_name(message)) : nullptr;
}

}  // namespace kapi::fieldmanager
