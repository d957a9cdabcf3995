// cel::standard_env(): cel-go's cel.NewEnv() standard library (common/stdlib/standard.go) with the optional types
// library (cel.OptionalTypes()) that kube enables, declarations and implementations together.
#include "cel/env.h"
#include "cel/stdlib/builders.h"

namespace kapi::cel {

Env standard_env() {
  Env env;
  for (auto part : {stdlib::logic_functions, stdlib::arithmetic_functions, stdlib::comparison_functions,
                    stdlib::container_functions, stdlib::string_functions, stdlib::conversion_functions,
                    stdlib::time_functions, stdlib::optional_functions}) {
    for (Function& function : part()) env.add_function(std::move(function));
  }
  env.add_type(Type::optional(Type::dyn()));
  env.parser_options.enable_optional_syntax = true;
  for (const char* macro : {"optMap", "optFlatMap"}) env.parser_options.extra_macros.emplace_back(macro);
  return env;
}

}  // namespace kapi::cel
