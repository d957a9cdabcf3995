#pragma once
// What one built-in resource contributes (its part of a RESTStorageProvider): how it is named and served, and
// its strategy. Each resource is one file under server/apis/<group>/ returning one of these, listed once in
// builtin_apis.cc.
#include "server/apis/core/pod_subresources.h"
#include "server/apis/core/serviceaccount_token.h"
#include "server/authentication/request_authenticator.h"
#include "server/authorization/authorizer.h"
#include "server/authorization/rbac/escalation.h"
#include "server/registry/creater.h"
#include "server/registry/resource.h"
#include "server/registry/strategy.h"
#include "server/registry/version_conversion.h"

#include <memory>

namespace kapi::apis::core {
class ServiceAllocator;
struct ConnectConfig;
}
namespace kapi::storage {
class Interface;
}

namespace kapi::apis {

struct ResourceStorage {
  registry::ResourceDefinition definition;
  std::shared_ptr<const registry::Strategy> strategy;
  // Set for a version served from another version's storage (autoscaling/v1 HorizontalPodAutoscalers, stored as
  // v2): `strategy` is then the storage version's.
  std::shared_ptr<const registry::VersionConversion> conversion = nullptr;
};

// core/v1
ResourceStorage configmaps();
ResourceStorage secrets();
ResourceStorage namespaces();
// With serviceaccounts/token when `tokens` has an issuer.
ResourceStorage serviceaccounts(core::TokenRequestConfig tokens);
// Evictions consult the PodDisruptionBudgets `budgets` finds (policy/v1); the connect subresources reach the
// kubelet as `connect` says.
ResourceStorage pods(core::DisruptionBudgetStore budgets, std::shared_ptr<const core::ConnectConfig> connect);
// Services take their cluster IPs and node ports from `allocator`.
ResourceStorage services(std::shared_ptr<core::ServiceAllocator> allocator,
                         std::shared_ptr<const core::ConnectConfig> connect);
ResourceStorage endpoints();
ResourceStorage events();
ResourceStorage nodes(std::shared_ptr<const core::ConnectConfig> connect);
ResourceStorage limitranges();
ResourceStorage resourcequotas();
ResourceStorage podtemplates();
ResourceStorage replicationcontrollers();
ResourceStorage persistentvolumes();
ResourceStorage persistentvolumeclaims();
// Served from component_status_source, not from storage: get and list only.
ResourceStorage componentstatuses();
// The objects of componentstatuses under `key_root`, computed on each read: etcd-0, healthy while `backend` answers.
std::unique_ptr<kapi::storage::Interface> component_status_source(kapi::storage::Interface& backend,
                                                                 std::string key_root);
// coordination.k8s.io/v1
ResourceStorage leases();
// rbac.authorization.k8s.io/v1: writes that would grant more than the writer holds are refused by `escalation`.
ResourceStorage clusterrolebindings(std::shared_ptr<const authorization::rbac::EscalationCheck> escalation);
ResourceStorage clusterroles(std::shared_ptr<const authorization::rbac::EscalationCheck> escalation);
ResourceStorage rolebindings(std::shared_ptr<const authorization::rbac::EscalationCheck> escalation);
ResourceStorage roles(std::shared_ptr<const authorization::rbac::EscalationCheck> escalation);
// flowcontrol.apiserver.k8s.io/v1: API Priority and Fairness' configuration (the config producer stores kube's
// bootstrap objects, server/flowcontrol/config_producer.h).
ResourceStorage flowschemas();
ResourceStorage prioritylevelconfigurations();

// The reviews, which only create (registry::Creater): they answer from the request's user and the authorizer.
// core/v1 bindings: pods/binding at the collection path, binding the pod of `pods` that the Binding names.
registry::Creater bindings(registry::Store& pods);
// authentication.k8s.io/v1
registry::Creater selfsubjectreviews();
registry::Creater tokenreviews(std::shared_ptr<const authentication::RequestAuthenticator> authenticator);
// authorization.k8s.io/v1
registry::Creater localsubjectaccessreviews(std::shared_ptr<const authorization::Authorizer> authorizer);
registry::Creater selfsubjectaccessreviews(std::shared_ptr<const authorization::Authorizer> authorizer);
registry::Creater selfsubjectrulesreviews(std::shared_ptr<const authorization::Authorizer> authorizer);
registry::Creater subjectaccessreviews(std::shared_ptr<const authorization::Authorizer> authorizer);

}  // namespace kapi::apis
