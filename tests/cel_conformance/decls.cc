// Converts checked.proto types and declarations as cel-go's cel.ProtoAsDeclaration / types.ProtoAsType do.
#include "tests/cel_conformance/decls.h"

namespace kapi::cel::conformance {
namespace {

namespace expr = ::cel::expr;

Type primitive(expr::Type::PrimitiveType kind) {
  switch (kind) {
    case expr::Type::BOOL: return Type::bool_type();
    case expr::Type::INT64: return Type::int_type();
    case expr::Type::UINT64: return Type::uint_type();
    case expr::Type::DOUBLE: return Type::double_type();
    case expr::Type::STRING: return Type::string_type();
    case expr::Type::BYTES: return Type::bytes_type();
    default: throw Unsupported("unspecified primitive type");
  }
}

}  // namespace

Type to_cel_type(const expr::Type& type) {
  switch (type.type_kind_case()) {
    case expr::Type::kDyn: return Type::dyn();
    case expr::Type::kNull: return Type::null_type();
    case expr::Type::kPrimitive: return primitive(type.primitive());
    case expr::Type::kWellKnown:
      if (type.well_known() == expr::Type::TIMESTAMP) return Type::timestamp();
      if (type.well_known() == expr::Type::DURATION) return Type::duration();
      throw Unsupported("google.protobuf.Any");
    case expr::Type::kMessageType:
      if (type.message_type() == "google.protobuf.Timestamp") return Type::timestamp();
      if (type.message_type() == "google.protobuf.Duration") return Type::duration();
      throw Unsupported("message type " + type.message_type());
    case expr::Type::kListType: return Type::list(to_cel_type(type.list_type().elem_type()));
    case expr::Type::kMapType:
      return Type::map(to_cel_type(type.map_type().key_type()), to_cel_type(type.map_type().value_type()));
    case expr::Type::kTypeParam: return Type::type_param(type.type_param());
    case expr::Type::kType:
      // `type` with no parameter is the type of all types; type(T) names one.
      if (type.type().type_kind_case() == expr::Type::TYPE_KIND_NOT_SET) return Type::type_type();
      return Type::type_of(to_cel_type(type.type()));
    case expr::Type::kError: return Type::error();
    case expr::Type::kAbstractType: {
      std::vector<Type> parameters;
      for (const expr::Type& parameter : type.abstract_type().parameter_types()) {
        parameters.push_back(to_cel_type(parameter));
      }
      if (type.abstract_type().name() == "optional_type" && parameters.size() == 1) {
        return Type::optional(std::move(parameters[0]));
      }
      return Type::opaque(type.abstract_type().name(), std::move(parameters));
    }
    case expr::Type::kWrapper: throw Unsupported("wrapper type");
    case expr::Type::kFunction: throw Unsupported("function type");
    case expr::Type::TYPE_KIND_NOT_SET: return Type::dyn();
  }
  throw Unsupported("unknown type kind");
}

void declare(Env& env, const expr::Decl& decl) {
  if (decl.has_ident()) {
    env.add_variable(decl.name(), to_cel_type(decl.ident().type()));
    return;
  }
  if (!decl.has_function()) throw Unsupported("declaration " + decl.name() + " has no kind");
  Function function{.name = decl.name(), .overloads = {}};
  for (const auto& overload : decl.function().overloads()) {
    Overload converted{.id = overload.overload_id(), .result = to_cel_type(overload.result_type()),
                       .member = overload.is_instance_function()};
    for (const expr::Type& param : overload.params()) converted.params.push_back(to_cel_type(param));
    function.overloads.push_back(std::move(converted));
  }
  env.add_function(std::move(function));
}

}  // namespace kapi::cel::conformance
