#pragma once
// The CEL environment of admission expressions and their compilation (k8s.io/apiserver/pkg/admission/plugin/cel:
// compile.go's variables, BuildRequestType and BuildNamespaceType, CompileCELExpression; composition.go's
// variables). ValidatingAdmissionPolicy expressions, their match conditions and webhook match conditions all
// compile here: the policy and webhook validation refuses what does not compile, the admission plugins keep the
// programs, and the policy type checker compiles against schema-derived types for `object` and `params`.
#include "cel/ast.h"
#include "cel/env.h"
#include "cel/program.h"
#include "cel/types.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kapi::apis::admissionregistration {

// kube's OptionalVariableDeclarations: `params` exists when the policy has a paramKind; `authorizer` and
// `authorizer.requestResource` in every expression but message expressions.
struct VariableDeclarations {
  bool params = false;
  bool authorizer = false;
};

// The types of `object`, `oldObject` and `params` (dyn unless the type checker knows the kind's schema).
struct DeclaredTypes {
  cel::Type object = cel::Type::dyn();
  cel::Type params = cel::Type::dyn();
};

// kubernetes.AdmissionRequest and kubernetes.Namespace, as kube builds them.
cel::Type admission_request_type();
cel::Type namespace_object_type();
// The authz library's types (library.AuthorizerType, library.ResourceCheckType).
cel::Type authorizer_type();
cel::Type resource_check_type();

// What an expression must evaluate to (kube's ExpressionAccessor.ReturnTypes).
enum class ReturnTypes {
  Bool,          // validations, match conditions
  String,        // message expressions
  StringOrNull,  // audit annotation values
  Any,           // variables and type checking
};

enum class CompileErrorType { Invalid, Internal };

struct CompileError {
  CompileErrorType type = CompileErrorType::Invalid;
  std::string detail;  // "compilation failed: ERROR: <input>:1:3: ..." or "must evaluate to bool but got string"
};

struct CompiledExpression {
  std::string expression;
  std::optional<CompileError> error;
  std::shared_ptr<const cel::CheckedAst> ast;  // null on error
  std::optional<cel::Program> program;         // set when compiled with a program (not for type checking only)
  cel::Type output_type = cel::Type::dyn();
};

// The environment every expression of this kind is compiled in. kube's composition adds `variables` (an object
// type whose fields are the variables compiled so far).
class AdmissionCompiler {
 public:
  // `stored`: kube's StoredExpressions environment (expressions already stored: the plugins' and the type
  // checker's), else NewExpressions (expressions being written).
  explicit AdmissionCompiler(VariableDeclarations declarations, DeclaredTypes types = {}, bool composition = false,
                             bool make_programs = true, bool stored = false);

  // CompileCELExpression against this environment.
  CompiledExpression compile(const std::string& expression, ReturnTypes return_types) const;
  // CompileAndStoreVariable: compiled against the variables added before it; later expressions see it, typed as
  // its expression's output (dyn when it failed to compile).
  const CompiledExpression& add_variable(const std::string& name, const std::string& expression);

  struct Variable {
    std::string name;
    CompiledExpression compiled;
  };
  const std::vector<Variable>& variables() const { return variables_; }
  const std::shared_ptr<const cel::Env>& env() const { return env_; }

 private:
  void rebuild_env();

  VariableDeclarations declarations_;
  DeclaredTypes types_;
  bool composition_;
  bool make_programs_;
  bool stored_;
  std::vector<Variable> variables_;
  std::shared_ptr<const cel::Env> env_;
};

// The base environments (kube's environment.MustBaseEnvSet at the default compatibility version).
const cel::Env& admission_base_env();
const cel::Env& admission_stored_env();

}  // namespace kapi::apis::admissionregistration
