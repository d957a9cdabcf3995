// kube's SchemaDeclType (k8s.io/apiserver/pkg/cel/common/schemas.go) with MaybeAssignTypeName's nested names, over
// the catalog's messages rather than their OpenAPI rendering (server/schema/openapi.cc makes the same choices).
#include "server/plugin/admission/validating_admission_policy/schema_types.h"

#include "server/apiextensions/cel/schema_types.h"
#include "server/apiextensions/schema/structural.h"
#include "server/schema/catalog.h"

#include <map>
#include <memory>
#include <string>

namespace kapi::admission::policy {
namespace {

namespace pb = google::protobuf;
using cel::Type;
using schema::Special;

// Recursive types (none among the kinds policies match, but the catalog allows them) end in dyn.
constexpr int kMaxDepth = 32;

class Converter {
 public:
  explicit Converter(const schema::Catalog& catalog) : catalog_(catalog) {}

  Type message(const pb::Descriptor* descriptor, const std::string& name, int depth) {
    switch (schema::Catalog::special(descriptor)) {
      case Special::kTime:
      case Special::kMicroTime: return Type::timestamp();
      case Special::kDuration:
      case Special::kQuantity:
      case Special::kIntOrString: return Type::string_type();
      case Special::kRawExtension:
      case Special::kFieldsV1: return Type::dyn();
      case Special::kStringList: return Type::list(Type::string_type());
      case Special::kNone: break;
    }
    if (depth > kMaxDepth) return Type::dyn();
    auto object = std::make_shared<cel::ObjectType>();
    object->name = name;
    if (schema::Catalog::has_type_meta(descriptor)) {
      object->fields.emplace("apiVersion", Type::string_type());
      object->fields.emplace("kind", Type::string_type());
    }
    for (const pb::FieldDescriptor* field : catalog_.json_fields(descriptor))
      object->fields.emplace(field->name(), field_type(field, name + "." + field->name(), depth + 1));
    return Type::object(std::move(object));
  }

 private:
  Type field_type(const pb::FieldDescriptor* field, const std::string& name, int depth) {
    if (field->is_map())
      return Type::map(Type::string_type(), element(field->message_type()->map_value(), name + ".@elem", depth));
    if (field->is_repeated()) return Type::list(element(field, name + ".@idx", depth));
    return element(field, name, depth);
  }

  Type element(const pb::FieldDescriptor* field, const std::string& name, int depth) {
    switch (field->type()) {
      case pb::FieldDescriptor::TYPE_MESSAGE:
      case pb::FieldDescriptor::TYPE_GROUP: return message(field->message_type(), name, depth);
      case pb::FieldDescriptor::TYPE_STRING:
      case pb::FieldDescriptor::TYPE_ENUM: return Type::string_type();
      case pb::FieldDescriptor::TYPE_BYTES: return Type::bytes_type();
      case pb::FieldDescriptor::TYPE_BOOL: return Type::bool_type();
      case pb::FieldDescriptor::TYPE_DOUBLE:
      case pb::FieldDescriptor::TYPE_FLOAT: return Type::double_type();
      default: return Type::int_type();
    }
  }

  const schema::Catalog& catalog_;
};

}  // namespace

std::optional<cel::Type> kind_type(const schema::Catalog& catalog, std::string_view group, std::string_view version,
                                   std::string_view kind, std::string_view type_name) {
  const pb::Descriptor* descriptor = catalog.kind(group, version, kind);
  if (!descriptor) return std::nullopt;
  Converter converter(catalog);
  return converter.message(descriptor, std::string(type_name), 0);
}

std::optional<cel::Type> custom_kind_type(const schema::Catalog& catalog, const boost::json::object& openapi_schema,
                                          std::string_view type_name) {
  const pb::Descriptor* object_meta = catalog.message("k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta");
  if (openapi_schema.empty() || !object_meta) return std::nullopt;
  const apiextensions::schema::Schema structural = apiextensions::schema::parse_schema(openapi_schema);
  const std::string name(type_name);
  std::optional<apiextensions::cel::DeclType> decl = apiextensions::cel::schema_decl_type(structural, true, name);
  if (!decl || !decl->type.object_type()) return std::nullopt;
  auto object = std::make_shared<cel::ObjectType>(*decl->type.object_type());
  object->fields.insert_or_assign("metadata", Converter(catalog).message(object_meta, name + ".metadata", 1));
  return Type::object(std::move(object));
}

}  // namespace kapi::admission::policy
