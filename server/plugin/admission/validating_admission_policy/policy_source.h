#pragma once
// The policies and bindings in force (kube's generic policy_source.go): read from the watch caches of
// validatingadmissionpolicies and validatingadmissionpolicybindings as the webhook plugin reads its configurations
// (webhook/configuration.h): each call lists the caches and rebuilds its hooks only when an object was written,
// created or deleted. A policy is compiled once per generation: a status write or a binding change reuses it.
#include "server/plugin/admission/validating_admission_policy/policy.h"

#include <asio/awaitable.hpp>

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace kapi::registry { class Store; }

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

  // Policies in name order; those without bindings are left out.
  asio::awaitable<std::shared_ptr<const Hooks>> hooks();

 private:
  registry::Store* policies_;
  registry::Store* bindings_;
  std::mutex mutex_;
  std::vector<std::int64_t> snapshot_revisions_;
  std::shared_ptr<const Hooks> snapshot_;
  // Compiled policies by name, kept while their uid and generation stay the same.
  std::map<std::string, std::shared_ptr<const CompiledPolicy>, std::less<>> compiled_;
};

}  // namespace kapi::admission::policy
