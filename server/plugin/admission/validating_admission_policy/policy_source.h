#pragma once
// The policies and bindings in force (kube's generic policy_source.go): validatingadmissionpolicies and
// validatingadmissionpolicybindings followed by informers (registry/informer.h), as the webhook plugin follows its
// configurations; the hooks are rebuilt only when an object was written, created or deleted. A policy is compiled once per generation: a status write or a binding change reuses it.
#include "server/plugin/admission/validating_admission_policy/policy.h"

#include "server/registry/informer.h"

#include <asio/any_io_executor.hpp>
#include <asio/awaitable.hpp>

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace kapi::admission::policy {

// A policy with the bindings that name it (kube's PolicyHook), bindings in name order.
struct Hook {
  std::shared_ptr<const CompiledPolicy> policy;
  std::vector<Binding> bindings;
};

using Hooks = std::vector<Hook>;

class PolicySource {
 public:
  PolicySource(registry::Store* policies, registry::Store* bindings);

  // Follows the policies and bindings from now on (without it, each call reads the watch caches).
  void start(asio::any_io_executor executor, std::shared_ptr<const std::atomic<bool>> stopping, base::Logger& logger);

  // Policies in name order; those without bindings are left out.
  asio::awaitable<std::shared_ptr<const Hooks>> hooks();

 private:
  using Versions = std::pair<std::uint64_t, std::uint64_t>;  // of the policies' and the bindings' informers

  registry::Informer policies_;
  registry::Informer bindings_;
  std::mutex mutex_;
  Versions snapshot_versions_;
  std::shared_ptr<const Hooks> snapshot_;
  // Compiled policies by name, kept while their uid and generation stay the same.
  std::map<std::string, std::shared_ptr<const CompiledPolicy>, std::less<>> compiled_;
};

}  // namespace kapi::admission::policy
