#pragma once
// CEL types as the checker reasons about them (cel-go's common/types.Type), including the object types kube
// derives from OpenAPI schemas (apiserver/pkg/cel.DeclType): an Object type names its fields and their types.
//
// Contract:
// - Type is a small value (a kind, a name, parameters, an object's field table shared by pointer). Equality and
//   assignability ignore the size hints (max_elements), which only feed the cost estimator.
// - Names follow cel-go so messages read the same: "int", "uint", "double", "bool", "string", "bytes",
//   "null_type", "list(int)", "map(string, dyn)", "google.protobuf.Timestamp", "google.protobuf.Duration",
//   "type(int)", "optional_type(string)", "dyn", an opaque's own name ("kubernetes.Quantity", "net.IP"), an
//   object's name (kube's "Object.spec.x", "io.k8s.api.core.v1.Pod" style names), a type parameter's name ("A").
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kapi::cel {

class Type;
struct ObjectType;

enum class TypeKind {
  kDyn,
  kNull,
  kBool,
  kInt,
  kUint,
  kDouble,
  kString,
  kBytes,
  kTimestamp,
  kDuration,
  kList,       // parameters: element
  kMap,        // parameters: key, value
  kType,       // type(T): parameters: T (or none for the type of all types)
  kOpaque,     // a named abstract type with parameters, e.g. optional_type(T), kubernetes.Quantity
  kObject,     // fields from object()
  kTypeParam,  // a type variable of a generic overload, by name
  kError,      // the checker's type for an expression that failed to check
};

class Type {
 public:
  Type() = default;  // dyn

  static Type dyn() { return Type(TypeKind::kDyn); }
  static Type null_type() { return Type(TypeKind::kNull); }
  static Type bool_type() { return Type(TypeKind::kBool); }
  static Type int_type() { return Type(TypeKind::kInt); }
  static Type uint_type() { return Type(TypeKind::kUint); }
  static Type double_type() { return Type(TypeKind::kDouble); }
  static Type string_type() { return Type(TypeKind::kString); }
  static Type bytes_type() { return Type(TypeKind::kBytes); }
  static Type timestamp() { return Type(TypeKind::kTimestamp); }
  static Type duration() { return Type(TypeKind::kDuration); }
  static Type error() { return Type(TypeKind::kError); }
  static Type list(Type element);
  static Type map(Type key, Type value);
  static Type type_of(Type type);  // type(T)
  static Type type_type();         // `type`: the type of type values
  static Type opaque(std::string name, std::vector<Type> parameters = {});
  static Type optional(Type value) { return opaque("optional_type", {std::move(value)}); }
  static Type object(std::shared_ptr<const ObjectType> object);
  static Type type_param(std::string name);

  TypeKind kind() const { return kind_; }
  bool is_dyn() const { return kind_ == TypeKind::kDyn; }
  // The name cel-go prints (see above); for list/map/opaque with parameters, the bare name ("list", "map").
  std::string_view name() const;
  const std::vector<Type>& parameters() const { return parameters_; }
  const Type& element() const { return parameters_.at(0); }  // list element, optional value, type(T)
  const Type& key() const { return parameters_.at(0); }      // map key
  const Type& value() const { return parameters_.at(1); }    // map value
  const ObjectType* object_type() const { return object_.get(); }
  bool is_optional() const { return kind_ == TypeKind::kOpaque && name_ == "optional_type"; }

  // Size hint for the cost estimator: the most elements (list items, map entries, string code points, bytes) a
  // value of this type can have, as kube derives it from maxItems/maxProperties/maxLength or the request limit.
  std::optional<std::uint64_t> max_elements() const { return max_elements_; }
  Type with_max_elements(std::uint64_t n) const;

  // "list(int)", "map(string, dyn)", "optional_type(string)", as cel-go's FormatCELType.
  std::string to_string() const;

  friend bool operator==(const Type& a, const Type& b);

 private:
  explicit Type(TypeKind kind) : kind_(kind) {}

  TypeKind kind_ = TypeKind::kDyn;
  std::string name_;  // opaque, object and type-param names
  std::vector<Type> parameters_;
  std::shared_ptr<const ObjectType> object_;
  std::optional<std::uint64_t> max_elements_;
};

// An object type's fields (kube: a DeclType of an OpenAPI object with properties). Field types may themselves be
// objects. Values of object types are maps at run time (see value.h), so `has(o.f)` and `o.f` work on them.
struct ObjectType {
  std::string name;
  std::map<std::string, Type, std::less<>> fields;

  const Type* field(std::string_view name) const;
};

}  // namespace kapi::cel
