// Placeholder until the checker lands (cel/checker is the type checker's home).
#include "cel/compile.h"

namespace kapi::cel {

CheckResult check(const Env&, ParsedAst) {
  CheckResult result;
  result.issues.errors.push_back(Issue{.message = "CEL checker not built yet"});
  result.message = "ERROR: CEL checker not built yet";
  return result;
}

}  // namespace kapi::cel
