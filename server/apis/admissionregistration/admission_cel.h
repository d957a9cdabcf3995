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

#include <array>
#include <cstddef>
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

// kube's environment types: NewExpressions checks expressions being written; StoredExpressions (NewExpressions
// plus the libraries of kube versions past the compatibility version) runs what is stored, and on an update checks
// the expressions the stored object already has (kube's preexistingExpressions).
enum class Environment { New, Stored };
// The environments a compiler keeps: one, or both when it checks a mix of new and preexisting expressions.
enum class Environments { New, Stored, Both };

// The environment every expression of this kind is compiled in. kube's composition adds `variables` (an object
// type whose fields are the variables compiled so far).
class AdmissionCompiler {
 public:
  explicit AdmissionCompiler(VariableDeclarations declarations, DeclaredTypes types = {}, bool composition = false,
                             bool make_programs = true, Environments environments = Environments::New);

  // CompileCELExpression against this environment: in `environment`, which the compiler must keep (by default
  // StoredExpressions when that is all it keeps, else NewExpressions).
  CompiledExpression compile(const std::string& expression, ReturnTypes return_types) const;
  CompiledExpression compile(const std::string& expression, ReturnTypes return_types, Environment environment) const;
  // CompileAndStoreVariable: compiled against the variables added before it; later expressions, in either
  // environment, see it typed as its expression's output (dyn when it failed to compile).
  const CompiledExpression& add_variable(const std::string& name, const std::string& expression);
  const CompiledExpression& add_variable(const std::string& name, const std::string& expression,
                                         Environment environment);

  struct Variable {
    std::string name;
    CompiledExpression compiled;
  };
  const std::vector<Variable>& variables() const { return variables_; }
  // The default environment.
  const std::shared_ptr<const cel::Env>& env() const { return env(default_environment()); }

 private:
  Environment default_environment() const {
    return environments_ == Environments::Stored ? Environment::Stored : Environment::New;
  }
  const std::shared_ptr<const cel::Env>& env(Environment environment) const {
    return envs_[static_cast<std::size_t>(environment)];
  }
  void rebuild_envs();

  VariableDeclarations declarations_;
  DeclaredTypes types_;
  bool composition_;
  bool make_programs_;
  Environments environments_;
  std::vector<Variable> variables_;
  std::array<std::shared_ptr<const cel::Env>, 2> envs_;  // by Environment; null where not kept
};

// The base environments (kube's environment.MustBaseEnvSet at the default compatibility version).
const cel::Env& admission_base_env();
const cel::Env& admission_stored_env();

}  // namespace kapi::apis::admissionregistration
