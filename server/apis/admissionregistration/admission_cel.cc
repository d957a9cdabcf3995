// kube's k8s.io/apiserver/pkg/admission/plugin/cel/compile.go (the admission variables, the request and namespace
// types, CompileCELExpression with its return type check) and composition.go (variables typed as they compile).
#include "server/apis/admissionregistration/admission_cel.h"

#include "cel/compile.h"
#include "cel/ext/authz.h"
#include "cel/ext/kube_env.h"

#include <utility>

namespace kapi::apis::admissionregistration {
namespace {

using cel::ObjectType;
using cel::Type;

Type object_of(std::string name, std::vector<std::pair<std::string, Type>> fields) {
  auto object = std::make_shared<ObjectType>();
  object->name = std::move(name);
  for (auto& [field, type] : fields) object->fields.emplace(std::move(field), std::move(type));
  return Type::object(std::move(object));
}

cel::Env make_env(const VariableDeclarations& declarations, const DeclaredTypes& types,
                  const std::optional<Type>& variables, Environment environment) {
  cel::Env env = environment == Environment::Stored ? admission_stored_env() : admission_base_env();
  env.add_variable("object", types.object);
  env.add_variable("oldObject", types.object);
  env.add_variable("namespaceObject", namespace_object_type());
  env.add_variable("request", admission_request_type());
  if (declarations.params) env.add_variable("params", types.params);
  if (declarations.authorizer) {
    env.add_variable("authorizer", authorizer_type());
    env.add_variable("authorizer.requestResource", resource_check_type());
  }
  if (variables) env.add_variable("variables", *variables);
  return env;
}

std::string return_types_text(ReturnTypes return_types) {
  switch (return_types) {
    case ReturnTypes::Bool: return "bool";
    case ReturnTypes::String: return "string";
    case ReturnTypes::StringOrNull: return "[string null_type]";
    case ReturnTypes::Any: return "google.protobuf.Any";
  }
  return "";
}

bool returns(const Type& output, ReturnTypes return_types) {
  switch (return_types) {
    case ReturnTypes::Bool: return output.kind() == cel::TypeKind::kBool;
    case ReturnTypes::String: return output.kind() == cel::TypeKind::kString;
    case ReturnTypes::StringOrNull:
      return output.kind() == cel::TypeKind::kString || output.kind() == cel::TypeKind::kNull;
    case ReturnTypes::Any: return true;
  }
  return false;
}

// convertCelTypeToDeclType: what later expressions see of a variable's type. Scalars, lists and maps keep theirs;
// objects and abstract types become dyn.
Type variable_type(const Type& type) {
  switch (type.kind()) {
    case cel::TypeKind::kBool:
    case cel::TypeKind::kBytes:
    case cel::TypeKind::kDouble:
    case cel::TypeKind::kDuration:
    case cel::TypeKind::kInt:
    case cel::TypeKind::kNull:
    case cel::TypeKind::kString:
    case cel::TypeKind::kTimestamp:
    case cel::TypeKind::kUint: return type;
    case cel::TypeKind::kList: return Type::list(variable_type(type.element()));
    case cel::TypeKind::kMap: return Type::map(variable_type(type.key()), variable_type(type.value()));
    default: return Type::dyn();
  }
}

}  // namespace

const cel::Env& admission_base_env() {
  static const cel::Env base = cel::ext::kube_base_env();
  return base;
}

const cel::Env& admission_stored_env() {
  static const cel::Env stored = cel::ext::kube_stored_env();
  return stored;
}

Type admission_request_type() {
  static const Type type = [] {
    const Type string = Type::string_type();
    Type gvk = object_of("kubernetes.GroupVersionKind", {{"group", string}, {"version", string}, {"kind", string}});
    Type gvr = object_of("kubernetes.GroupVersionResource",
                         {{"group", string}, {"version", string}, {"resource", string}});
    Type user_info = object_of("kubernetes.UserInfo", {{"username", string},
                                                       {"uid", string},
                                                       {"groups", Type::list(string)},
                                                       {"extra", Type::map(string, Type::list(string))}});
    return object_of("kubernetes.AdmissionRequest", {{"kind", gvk},
                                                     {"resource", gvr},
                                                     {"subResource", string},
                                                     {"requestKind", gvk},
                                                     {"requestResource", gvr},
                                                     {"requestSubResource", string},
                                                     {"name", string},
                                                     {"namespace", string},
                                                     {"operation", string},
                                                     {"userInfo", user_info},
                                                     {"dryRun", Type::bool_type()},
                                                     {"options", Type::dyn()}});
  }();
  return type;
}

Type namespace_object_type() {
  static const Type type = [] {
    const Type string = Type::string_type();
    const Type strings = Type::list(string);
    Type spec = object_of("kubernetes.NamespaceSpec", {{"finalizers", strings}});
    Type condition = object_of("kubernetes.NamespaceCondition", {{"status", string},
                                                                {"type", string},
                                                                {"lastTransitionTime", Type::timestamp()},
                                                                {"message", string},
                                                                {"reason", string}});
    Type status = object_of("kubernetes.NamespaceStatus", {{"conditions", Type::list(condition)}, {"phase", string}});
    Type metadata = object_of("kubernetes.NamespaceMetadata", {{"name", string},
                                                              {"generateName", string},
                                                              {"namespace", string},
                                                              {"labels", Type::map(string, string)},
                                                              {"annotations", Type::map(string, string)},
                                                              {"UID", string},
                                                              {"creationTimestamp", Type::timestamp()},
                                                              {"deletionGracePeriodSeconds", Type::int_type()},
                                                              {"deletionTimestamp", Type::timestamp()},
                                                              {"generation", Type::int_type()},
                                                              {"resourceVersion", string},
                                                              {"finalizers", strings}});
    return object_of("kubernetes.Namespace", {{"metadata", metadata}, {"spec", spec}, {"status", status}});
  }();
  return type;
}

Type authorizer_type() { return cel::ext::authorizer_type(); }
Type resource_check_type() { return cel::ext::resource_check_type(); }

AdmissionCompiler::AdmissionCompiler(VariableDeclarations declarations, DeclaredTypes types, bool composition,
                                     bool make_programs, Environments environments)
    : declarations_(declarations),
      types_(std::move(types)),
      composition_(composition),
      make_programs_(make_programs),
      environments_(environments) {
  rebuild_envs();
}

void AdmissionCompiler::rebuild_envs() {
  std::optional<Type> variables;
  if (composition_) {
    auto fields = std::make_shared<ObjectType>();
    fields->name = "kubernetes.variables";
    for (const Variable& variable : variables_)
      fields->fields.insert_or_assign(variable.name, variable_type(variable.compiled.output_type));
    variables = Type::object(std::move(fields));
  }
  for (Environment environment : {Environment::New, Environment::Stored}) {
    const bool kept = environments_ == Environments::Both ||
                      (environments_ == Environments::New) == (environment == Environment::New);
    if (kept)
      envs_[static_cast<std::size_t>(environment)] =
          std::make_shared<const cel::Env>(make_env(declarations_, types_, variables, environment));
  }
}

CompiledExpression AdmissionCompiler::compile(const std::string& expression, ReturnTypes return_types) const {
  return compile(expression, return_types, default_environment());
}

CompiledExpression AdmissionCompiler::compile(const std::string& expression, ReturnTypes return_types,
                                              Environment environment) const {
  const std::shared_ptr<const cel::Env>& compile_env = env(environment);
  CompiledExpression out;
  out.expression = expression;
  cel::CheckResult checked = cel::compile(*compile_env, expression);
  if (!checked.ast) {
    out.error = CompileError{CompileErrorType::Invalid, "compilation failed: " + checked.message};
    return out;
  }
  const Type output = checked.ast->result_type();
  if (!returns(output, return_types)) {
    const std::string wanted = return_types_text(return_types);
    const std::string reason = return_types == ReturnTypes::StringOrNull ? "must evaluate to one of " : "must evaluate to ";
    out.error = CompileError{CompileErrorType::Invalid, reason + wanted + " but got " + output.to_string()};
    return out;
  }
  out.output_type = output;
  out.ast = std::make_shared<const cel::CheckedAst>(std::move(*checked.ast));
  if (make_programs_) out.program = cel::Program::plan(compile_env, out.ast);
  return out;
}

const CompiledExpression& AdmissionCompiler::add_variable(const std::string& name, const std::string& expression) {
  return add_variable(name, expression, default_environment());
}

const CompiledExpression& AdmissionCompiler::add_variable(const std::string& name, const std::string& expression,
                                                          Environment environment) {
  CompiledExpression compiled = compile(expression, ReturnTypes::Any, environment);
  if (compiled.error) compiled.output_type = Type::dyn();
  variables_.push_back({name, std::move(compiled)});
  rebuild_envs();
  return variables_.back().compiled;
}

}  // namespace kapi::apis::admissionregistration
