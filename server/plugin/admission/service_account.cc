// ServiceAccount (kube's plugin/pkg/admission/serviceaccount/admission.go, release-1.32): a new pod runs as a
// service account that exists ("default" unless it names one), gets the projected kube-api-access-<suffix> volume
// holding a bound token, the cluster's CA and its namespace, mounted read-only in every container unless
// automountServiceAccountToken says no, and the account's image pull secrets when it has none. Mirror pods may
// reference neither service accounts nor secrets. A service account annotated kubernetes.io/enforce-mountable-secrets
// limits the secrets its pods (and their ephemeral containers) may reference to its own.
#include "server/admission/errors.h"
#include "server/admission/plugin.h"
#include "server/apis/core/pod_references.h"
#include "server/plugin/admission/object_lookup.h"
#include "server/registry/json_fields.h"
#include "server/registry/object_meta.h"

#include <asio/steady_timer.hpp>
#include <asio/this_coro.hpp>
#include <asio/use_awaitable.hpp>

#include <chrono>
#include <functional>
#include <optional>
#include <random>
#include <set>

namespace kapi::admission {
namespace {

using namespace registry::fields;
using registry::meta_string;

constexpr std::string_view kDefaultServiceAccountName = "default";
constexpr std::string_view kEnforceMountableSecretsAnnotation = "kubernetes.io/enforce-mountable-secrets";
constexpr std::string_view kDefaultAPITokenMountPath = "/var/run/secrets/kubernetes.io/serviceaccount";
constexpr std::string_view kServiceAccountVolumeName = "kube-api-access";
constexpr std::string_view kMirrorPodAnnotation = "kubernetes.io/config.mirror";
constexpr std::int64_t kWarnOnlyBoundTokenExpirationSeconds = 3607;  // serviceaccount.WarnOnlyBoundTokenExpirationSeconds
constexpr std::int64_t kProjectedVolumeSourceDefaultMode = 0644;

const json::object* annotations_of(const json::object& object) {
  return object_at(object_at(object, "metadata"), "annotations");
}

bool has_annotation(const json::object& object, std::string_view key) {
  const json::object* annotations = annotations_of(object);
  return annotations && annotations->contains(key);
}

// strconv.ParseBool's true spellings (anything else, errors included, reads false).
bool parse_go_bool(std::string_view value) {
  return value == "1" || value == "t" || value == "T" || value == "true" || value == "TRUE" || value == "True";
}

std::set<std::string, std::less<>> names_in(const json::object& object, std::string_view key) {
  std::set<std::string, std::less<>> names;
  for_each_object(&object, key, [&](const json::object& reference, std::size_t) {
    names.emplace(string_at(reference, "name"));
  });
  return names;
}

// podutil.VisitPodSecretNames over every container kind: whether the pod references any secret.
bool references_secrets(const json::object& spec) {
  bool found = false;
  apis::core::visit_pod_secret_names(spec, [&found](std::string_view) { found = true; });
  return found;
}

bool uses_service_account_token_projection(const json::object& spec) {
  bool found = false;
  for_each_object(&spec, "volumes", [&](const json::object& volume, std::size_t) {
    for_each_object(object_at(volume, "projected"), "sources", [&](const json::object& source, std::size_t) {
      if (has(source, "serviceAccountToken")) found = true;
    });
  });
  return found;
}

// The first secret reference of `containers` that `mountable` does not hold, as kube's message describes it.
std::string unmountable_env_secret(const json::object& spec, std::string_view list, std::string_view what,
                                   const std::set<std::string, std::less<>>& mountable, std::string_view account) {
  std::string refused;
  for_each_object(&spec, list, [&](const json::object& container, std::size_t) {
    if (!refused.empty()) return;
    const std::string container_name(string_at(container, "name"));
    for_each_object(&container, "env", [&](const json::object& variable, std::size_t) {
      const json::object* key_ref = object_at(object_at(variable, "valueFrom"), "secretKeyRef");
      if (!refused.empty() || !key_ref || mountable.contains(string_at(key_ref, "name"))) return;
      refused = std::string(what) + " " + container_name + " with envVar " + std::string(string_at(variable, "name")) +
                " referencing secret.secretName=\"" + std::string(string_at(key_ref, "name")) +
                "\" is not allowed because service account " + std::string(account) +
                " does not reference that secret";
    });
    for_each_object(&container, "envFrom", [&](const json::object& source, std::size_t) {
      const json::object* secret_ref = object_at(source, "secretRef");
      if (!refused.empty() || !secret_ref || mountable.contains(string_at(secret_ref, "name"))) return;
      refused = std::string(what) + " " + container_name + " with envFrom referencing secret.secretName=\"" +
                std::string(string_at(secret_ref, "name")) + "\" is not allowed because service account " +
                std::string(account) + " does not reference that secret";
    });
  });
  return refused;
}

// limitSecretReferences: "" when every secret the pod references is one the service account lists.
std::string unmountable_secret(const json::object& account, const json::object& spec) {
  const std::string account_name(meta_string(account, "name"));
  const auto mountable = names_in(account, "secrets");
  std::string refused;
  for_each_object(&spec, "volumes", [&](const json::object& volume, std::size_t) {
    const json::object* secret = object_at(volume, "secret");
    if (!refused.empty() || !secret || mountable.contains(string_at(secret, "secretName"))) return;
    refused = "volume with secret.secretName=\"" + std::string(string_at(secret, "secretName")) +
              "\" is not allowed because service account " + account_name + " does not reference that secret";
  });
  if (refused.empty()) refused = unmountable_env_secret(spec, "initContainers", "init container", mountable, account_name);
  if (refused.empty()) refused = unmountable_env_secret(spec, "containers", "container", mountable, account_name);
  if (!refused.empty()) return refused;
  const auto pull_secrets = names_in(account, "imagePullSecrets");
  for_each_object(&spec, "imagePullSecrets", [&](const json::object& reference, std::size_t index) {
    if (!refused.empty() || pull_secrets.contains(string_at(reference, "name"))) return;
    refused = "imagePullSecrets[" + std::to_string(index) + "].name=\"" + std::string(string_at(reference, "name")) +
              "\" is not allowed because service account " + account_name + " does not reference that imagePullSecret";
  });
  return refused;
}

bool enforces_mountable_secrets(const json::object& account) {
  const json::object* annotations = annotations_of(account);
  if (!annotations) return false;
  auto value = annotations->find(kEnforceMountableSecretsAnnotation);
  return value != annotations->end() && value->value().is_string() && parse_go_bool(value->value().as_string());
}

bool should_automount(const json::object& account, const json::object& spec) {
  if (auto pod = spec.find("automountServiceAccountToken"); pod != spec.end() && pod->value().is_bool())
    return pod->value().as_bool();
  if (auto sa = account.find("automountServiceAccountToken"); sa != account.end() && sa->value().is_bool())
    return sa->value().as_bool();
  return true;
}

// TokenVolumeSource, with the defaultMode kube sets explicitly (kubernetes#104464).
json::object token_volume(std::string name) {
  json::object token{{"expirationSeconds", kWarnOnlyBoundTokenExpirationSeconds}, {"path", "token"}};
  json::object ca{{"name", "kube-root-ca.crt"}, {"items", json::array{json::object{{"key", "ca.crt"}, {"path", "ca.crt"}}}}};
  json::object namespace_file{{"path", "namespace"},
                              {"fieldRef", json::object{{"apiVersion", "v1"}, {"fieldPath", "metadata.namespace"}}}};
  json::object downward{{"items", json::array{std::move(namespace_file)}}};
  json::array sources{json::object{{"serviceAccountToken", std::move(token)}}, json::object{{"configMap", std::move(ca)}},
                      json::object{{"downwardAPI", std::move(downward)}}};
  return json::object{
      {"name", std::move(name)},
      {"projected", json::object{{"sources", std::move(sources)}, {"defaultMode", kProjectedVolumeSourceDefaultMode}}}};
}

void mount_service_account_token(json::object& spec) {
  std::string volume_name;
  const std::string prefix = std::string(kServiceAccountVolumeName) + "-";
  for_each_object(&spec, "volumes", [&](const json::object& volume, std::size_t) {
    if (volume_name.empty() && string_at(volume, "name").starts_with(prefix)) volume_name = string_at(volume, "name");
  });
  const bool has_token_volume = !volume_name.empty();
  if (!has_token_volume) volume_name = prefix + registry::generate_name_suffix();

  bool needs_token_volume = false;
  for (std::string_view list : {"initContainers", "containers"}) {
    for_each_object(&spec, list, [&](json::object& container, std::size_t) {
      bool mounted = false;
      for_each_object(&container, "volumeMounts", [&](const json::object& mount, std::size_t) {
        if (string_at(mount, "mountPath") == kDefaultAPITokenMountPath) mounted = true;
      });
      if (mounted) return;
      json::value& mounts = container["volumeMounts"];
      if (!mounts.is_array()) mounts = json::array();
      mounts.as_array().push_back(
          json::object{{"name", volume_name}, {"readOnly", true}, {"mountPath", kDefaultAPITokenMountPath}});
      needs_token_volume = true;
    });
  }
  if (has_token_volume || !needs_token_volume) return;
  json::value& volumes = spec["volumes"];
  if (!volumes.is_array()) volumes = json::array();
  volumes.as_array().push_back(token_volume(std::move(volume_name)));
}

class ServiceAccount final : public Plugin {
 public:
  explicit ServiceAccount(registry::Store* service_accounts) : service_accounts_(service_accounts) {}

  // Create of a pod, and the update of its ephemeral containers (which only Validate looks at).
  bool handles(const Attributes& attributes) const override {
    if (!is_resource(attributes, "", "pods") || !attributes.object) return false;
    if (attributes.operation == Operation::Create) return attributes.subresource.empty();
    return attributes.operation == Operation::Update && attributes.subresource == "ephemeralcontainers";
  }
  bool mutates() const override { return true; }
  bool validates() const override { return true; }

  asio::awaitable<void> admit(Attributes& attributes) override {
    if (attributes.operation != Operation::Create) co_return;
    json::object& pod = *attributes.object;
    // The kubelet deletes a mirror pod whose spec differs from its static pod's: mirror pods are only checked.
    if (!has_annotation(pod, kMirrorPodAnnotation)) {
      json::object& spec = ensure_object(pod, "spec");
      // v1's deprecated spec.serviceAccount stands for serviceAccountName when that is empty, and kube writes
      // every v1 pod with the alias equal to the name (Convert_core_PodSpec_To_v1_PodSpec).
      if (string_at(spec, "serviceAccountName").empty() && !string_at(spec, "serviceAccount").empty())
        spec["serviceAccountName"] = json::value(spec.at("serviceAccount"));
      if (string_at(spec, "serviceAccountName").empty()) spec["serviceAccountName"] = kDefaultServiceAccountName;
      spec["serviceAccount"] = json::value(spec.at("serviceAccountName"));
      const std::string account_name(string_at(spec, "serviceAccountName"));
      const json::object account = co_await service_account(attributes, account_name);
      if (should_automount(account, spec)) mount_service_account_token(spec);
      if (array_or_empty(spec, "imagePullSecrets").empty()) {
        json::array pull_secrets;
        for_each_object(&account, "imagePullSecrets", [&](const json::object& reference, std::size_t) {
          pull_secrets.push_back(json::object{{"name", string_at(reference, "name")}});
        });
        if (!pull_secrets.empty()) spec["imagePullSecrets"] = std::move(pull_secrets);
      }
    }
    co_await validate(attributes);
  }

  asio::awaitable<void> validate(const Attributes& attributes) override {
    const json::object& pod = *attributes.object;
    const json::object& spec = object_or_empty(pod, "spec");
    if (attributes.operation == Operation::Update) {
      co_await limit_ephemeral_container_secret_references(attributes, spec);
      co_return;
    }
    if (has_annotation(pod, kMirrorPodAnnotation)) {
      if (!string_at(spec, "serviceAccountName").empty() || !string_at(spec, "serviceAccount").empty())
        throw forbidden(attributes, "a mirror pod may not reference service accounts");
      if (references_secrets(spec)) throw forbidden(attributes, "a mirror pod may not reference secrets");
      if (uses_service_account_token_projection(spec))
        throw forbidden(attributes, "a mirror pod may not use ServiceAccountToken volume projections");
      co_return;
    }
    const std::string account_name(string_at(spec, "serviceAccountName"));
    if (account_name.empty())
      throw forbidden(attributes, "no service account specified for pod " + attributes.namespace_ + "/" +
                                      std::string(meta_string(pod, "name")));
    const json::object account = co_await service_account(attributes, account_name);
    if (!enforces_mountable_secrets(account)) co_return;
    if (std::string refused = unmountable_secret(account, spec); !refused.empty())
      throw forbidden(attributes, std::move(refused));
  }

 private:
  // getServiceAccount: the lister, then live reads; ten of them 100-200ms apart for "default", which the
  // service account controller creates in every new namespace a moment after the namespace.
  asio::awaitable<json::object> service_account(const Attributes& attributes, const std::string& name) {
    const int attempts = name == kDefaultServiceAccountName ? 10 : 1;
    const auto interval = std::chrono::milliseconds(100 + std::random_device{}() % 100);
    std::optional<json::object> account = co_await find_object(*service_accounts_, attributes.namespace_, name);
    for (int attempt = 1; !account && attempt < attempts; ++attempt) {
      asio::steady_timer timer(co_await asio::this_coro::executor, interval);
      co_await timer.async_wait(asio::use_awaitable);
      account = co_await find_object(*service_accounts_, attributes.namespace_, name);
    }
    if (!account)
      throw forbidden(attributes, "error looking up service account " + attributes.namespace_ + "/" + name +
                                      ": serviceaccount \"" + name + "\" not found");
    co_return std::move(*account);
  }

  asio::awaitable<void> limit_ephemeral_container_secret_references(const Attributes& attributes,
                                                                    const json::object& spec) {
    const std::string account_name(string_at(spec, "serviceAccountName"));
    if (account_name.empty())
      throw forbidden(attributes, "no service account specified for pod " + attributes.namespace_ + "/" +
                                      std::string(meta_string(*attributes.object, "name")));
    const json::object account = co_await service_account(attributes, account_name);
    if (!enforces_mountable_secrets(account)) co_return;
    std::string refused =
        unmountable_env_secret(spec, "ephemeralContainers", "ephemeral container", names_in(account, "secrets"), account_name);
    // kube returns this one as a plain error, which the handler answers as a 500 without a reason.
    if (!refused.empty()) throw apierrors::ApiError(apierrors::Status{.code = 500, .reason = "", .message = refused});
  }

  registry::Store* service_accounts_;
};

}  // namespace

std::unique_ptr<Plugin> make_service_account(const PluginContext& context) {
  return std::make_unique<ServiceAccount>(context.stores("", "serviceaccounts"));
}

}  // namespace kapi::admission
