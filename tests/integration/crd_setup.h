#pragma once
// Installing a CustomResourceDefinition as a user would before using it: kubectl apply, then kubectl wait until it
// is Established (and so served).
#include "tests/integration/kubectl_runner.h"

#include <cctype>
#include <string>

namespace kapi::integration {

// A CustomResourceDefinition of one served and stored version "v1" whose openAPIV3Schema is an object with the
// given `properties` (YAML, indented as a block under `properties:`, i.e. by 10 spaces).
inline std::string single_version_crd(const std::string& group, const std::string& plural, const std::string& kind,
                                      const std::string& scope, const std::string& properties) {
  std::string singular = kind;
  for (char& c : singular) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: " + plural + "." +
         group + "}\nspec:\n  group: " + group + "\n  scope: " + scope + "\n  names: {plural: " + plural +
         ", singular: " + singular + ", kind: " + kind + "}\n  versions:\n  - name: v1\n    served: true\n" +
         "    storage: true\n    schema:\n      openAPIV3Schema:\n        type: object\n        properties:\n" +
         properties;
}

// The result of the step that failed, else of the (bounded) wait.
inline CommandResult apply_crd_and_wait(const test_support::KapiProcess& kapi, const std::string& file,
                                        const std::string& manifest, const std::string& name) {
  CommandResult applied = run_kubectl(kapi, "apply -f " + write_manifest(kapi, file, manifest));
  if (applied.exit_code != 0) return applied;
  return run_kubectl(kapi, "wait --for=condition=Established --timeout=20s crd/" + name);
}

}  // namespace kapi::integration
