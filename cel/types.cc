#include "cel/types.h"

namespace kapi::cel {

Type Type::list(Type element) {
  Type t(TypeKind::kList);
  t.parameters_.push_back(std::move(element));
  return t;
}

Type Type::map(Type key, Type value) {
  Type t(TypeKind::kMap);
  t.parameters_.push_back(std::move(key));
  t.parameters_.push_back(std::move(value));
  return t;
}

Type Type::type_of(Type type) {
  Type t(TypeKind::kType);
  t.parameters_.push_back(std::move(type));
  return t;
}

Type Type::type_type() { return Type(TypeKind::kType); }

Type Type::opaque(std::string name, std::vector<Type> parameters) {
  Type t(TypeKind::kOpaque);
  t.name_ = std::move(name);
  t.parameters_ = std::move(parameters);
  return t;
}

Type Type::object(std::shared_ptr<const ObjectType> object) {
  Type t(TypeKind::kObject);
  t.name_ = object->name;
  t.object_ = std::move(object);
  return t;
}

Type Type::type_param(std::string name) {
  Type t(TypeKind::kTypeParam);
  t.name_ = std::move(name);
  return t;
}

Type Type::with_max_elements(std::uint64_t n) const {
  Type t = *this;
  t.max_elements_ = n;
  return t;
}

std::string_view Type::name() const {
  switch (kind_) {
    case TypeKind::kDyn: return "dyn";
    case TypeKind::kNull: return "null_type";
    case TypeKind::kBool: return "bool";
    case TypeKind::kInt: return "int";
    case TypeKind::kUint: return "uint";
    case TypeKind::kDouble: return "double";
    case TypeKind::kString: return "string";
    case TypeKind::kBytes: return "bytes";
    case TypeKind::kTimestamp: return "google.protobuf.Timestamp";
    case TypeKind::kDuration: return "google.protobuf.Duration";
    case TypeKind::kList: return "list";
    case TypeKind::kMap: return "map";
    case TypeKind::kType: return "type";
    case TypeKind::kError: return "*error*";
    case TypeKind::kOpaque:
    case TypeKind::kObject:
    case TypeKind::kTypeParam: return name_;
  }
  return "dyn";
}

std::string Type::to_string() const {
  std::string out(name());
  if (parameters_.empty()) return out;
  out += '(';
  for (std::size_t i = 0; i < parameters_.size(); ++i) {
    if (i > 0) out += ", ";
    out += parameters_[i].to_string();
  }
  out += ')';
  return out;
}

bool operator==(const Type& a, const Type& b) {
  if (a.kind_ != b.kind_ || a.name_ != b.name_ || a.parameters_ != b.parameters_) return false;
  if (a.kind_ == TypeKind::kObject) return a.object_ == b.object_ || a.name_ == b.name_;
  return true;
}

const Type* ObjectType::field(std::string_view name) const {
  auto it = fields.find(name);
  return it == fields.end() ? nullptr : &it->second;
}

}  // namespace kapi::cel
