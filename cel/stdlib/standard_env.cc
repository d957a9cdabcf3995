// Placeholder until the standard library lands (cel/stdlib: declarations and implementations of cel-go's stdlib).
#include "cel/env.h"

namespace kapi::cel {

Env standard_env() { return Env{}; }

}  // namespace kapi::cel
