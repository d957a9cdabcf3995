#pragma once
// Installing a CustomResourceDefinition as a user would before using it: kubectl apply, then kubectl wait until it
// is Established (and so served).
#include "tests/integration/kubectl_runner.h"

#include <string>

namespace kapi::integration {

// The result of the step that failed, else of the (bounded) wait.
inline CommandResult apply_crd_and_wait(const test_support::KapiProcess& kapi, const std::string& file,
                                        const std::string& manifest, const std::string& name) {
  CommandResult applied = run_kubectl(kapi, "apply -f " + write_manifest(kapi, file, manifest));
  if (applied.exit_code != 0) return applied;
  return run_kubectl(kapi, "wait --for=condition=Established --timeout=20s crd/" + name);
}

}  // namespace kapi::integration
