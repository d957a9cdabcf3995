#include "server/apis/core/serviceaccount_token.h"

#include "server/apierrors/errors.h"
#include "base/json_fields.h"
#include "server/registry/object_meta.h"
#include "server/registry/store.h"
#include "server/schema/go_text.h"

namespace kapi::apis::core {
namespace {

using namespace base::fields;
using authentication::ObjectReference;

constexpr std::int64_t kDefaultExpirationSeconds = 3600;           // SetDefaults_TokenRequestSpec
constexpr std::int64_t kMinExpirationSeconds = 10 * 60;
constexpr std::int64_t kMaxExpirationSeconds = 4294967295;         // math.MaxUint32
constexpr std::int64_t kWarnOnlyBoundTokenExpirationSeconds = 3607;  // what kubelets ask for
constexpr std::int64_t kExpirationExtensionSeconds = 365 * 24 * 60 * 60;

apierrors::ApiError invalid(const std::string& name, validation::FieldError error) {
  return apierrors::ApiError(apierrors::invalid("authentication.k8s.io", "TokenRequest", name, {std::move(error)}));
}

// ValidateTokenRequest, and the name and namespace checks of TokenREST.Create.
void validate(const json::object& request, const std::string& namespace_, const std::string& name,
              std::int64_t expiration) {
  const validation::Path metadata("metadata");
  if (auto given = registry::meta_string(request, "name"); !given.empty() && given != name)
    throw invalid(name, validation::invalid(metadata.child("name"), given, "must match the service account name if specified"));
  if (auto given = registry::meta_string(request, "namespace"); !given.empty() && given != namespace_)
    throw invalid(name, validation::invalid(metadata.child("namespace"), given,
                                            "must match the service account namespace if specified"));
  const validation::Path seconds = validation::Path("spec").child("expirationSeconds");
  if (expiration < kMinExpirationSeconds)
    throw invalid(name, validation::invalid_value(seconds, std::to_string(expiration),
                                                  "may not specify a duration less than 10 minutes"));
  if (expiration > kMaxExpirationSeconds)
    throw invalid(name, validation::invalid_value(seconds, std::to_string(expiration),
                                                  "may not specify a duration larger than 2^32 seconds"));
}

ObjectReference reference_to(const json::object& object) {
  return {std::string(registry::meta_string(object, "name")), std::string(registry::meta_string(object, "uid"))};
}

struct BoundObjects {
  std::optional<ObjectReference> pod, secret, node;
};

// The object a token is to be bound to, which must exist (with the UID the reference names, if any).
asio::awaitable<BoundObjects> resolve_bound_object(const TokenRequestConfig& config, const json::object& ref,
                                                   const std::string& namespace_, const std::string& service_account) {
  const std::string api_version(string_at(ref, "apiVersion"));
  const std::string kind(string_at(ref, "kind"));
  const std::string name(string_at(ref, "name"));
  const auto slash = api_version.find('/');
  const std::string group = slash == std::string::npos ? "" : api_version.substr(0, slash);
  const std::string version = slash == std::string::npos ? api_version : api_version.substr(slash + 1);
  std::string resource;
  if (group.empty() && kind == "Pod") resource = "pods";
  else if (group.empty() && kind == "Secret") resource = "secrets";
  else if (group.empty() && kind == "Node") resource = "nodes";
  else
    throw apierrors::ApiError(apierrors::bad_request("cannot bind token to object of type " + group + "/" + version +
                                                     ", Kind=" + kind));
  // Named first: no temporaries inside a co_await (g++ 12).
  auto lookup = config.objects(resource, resource == "nodes" ? std::string() : namespace_, name);
  auto object = co_await std::move(lookup);
  if (!object) throw apierrors::ApiError(apierrors::not_found("", resource, name));
  if (auto uid = string_at(ref, "uid"); !uid.empty() && uid != registry::meta_string(*object, "uid"))
    throw apierrors::ApiError(apierrors::conflict(
        "", kind, name,
        "the UID in the bound object reference (" + std::string(uid) +
            ") does not match the UID in record. The object might have been deleted and then recreated"));
  BoundObjects bound;
  if (resource == "pods") {
    const json::object* spec = object_at(*object, "spec");
    if (string_at(spec, "serviceAccountName") != service_account)
      throw apierrors::ApiError(apierrors::bad_request("cannot bind token for serviceaccount \"" + service_account +
                                                       "\" to pod running with different serviceaccount name."));
    bound.pod = reference_to(*object);
    // The token names the pod's node too, so its users know where it runs (ServiceAccountTokenPodNodeInfo).
    if (auto node_name = string_at(spec, "nodeName"); !node_name.empty()) {
      auto node_lookup = config.objects("nodes", "", std::string(node_name));
      auto node = co_await std::move(node_lookup);
      if (node) bound.node = reference_to(*node);
    }
  } else if (resource == "secrets") {
    bound.secret = reference_to(*object);
  } else {
    bound.node = reference_to(*object);
  }
  co_return bound;
}

bool only_api_audiences(const authentication::Audiences& requested, const authentication::Audiences& api) {
  for (const auto& audience : requested)
    if (std::find(api.begin(), api.end(), audience) == api.end()) return false;
  return !requested.empty();
}

}  // namespace

registry::CreateSubresource serviceaccount_token(TokenRequestConfig config) {
  auto create = [config = std::move(config)](registry::Store& service_accounts, std::string namespace_,
                                             std::string name, json::object request,
                                             bool) -> asio::awaitable<registry::SubresourceAnswer> {
    json::object* spec = object_at(request, "spec");
    if (!spec) spec = &(request["spec"] = json::object()).as_object();
    std::int64_t expiration = int_at(*spec, "expirationSeconds").value_or(kDefaultExpirationSeconds);
    validate(request, namespace_, name, expiration);

    auto read = service_accounts.get(namespace_, name, "");
    registry::ReadObject stored = co_await std::move(read);
    const json::object service_account = registry::parse_json(stored.json).as_object();
    authentication::BoundTokenClaims claims;
    claims.namespace_ = namespace_;
    claims.service_account = reference_to(service_account);
    if (const json::object* ref = object_at(*spec, "boundObjectRef")) {
      BoundObjects bound = co_await resolve_bound_object(config, *ref, namespace_, name);
      claims.pod = std::move(bound.pod);
      claims.secret = std::move(bound.secret);
      claims.node = std::move(bound.node);
    }
    if (const json::array* audiences = array_at(*spec, "audiences"))
      for (const auto& audience : *audiences)
        if (audience.is_string()) claims.audiences.emplace_back(audience.as_string());
    if (claims.audiences.empty()) {
      claims.audiences = config.api_audiences;
      (*spec)["audiences"] = json::value_from(config.api_audiences);
    }
    if (config.max_expiration.count() > 0 && expiration > config.max_expiration.count())
      expiration = config.max_expiration.count();
    (*spec)["expirationSeconds"] = expiration;
    claims.expiration = std::chrono::seconds(expiration);
    // Kubelets ask for 3607 s and refresh at 80%; old clients that never refresh keep working for a year, and the
    // authenticator warns once the asked-for time has passed.
    if (config.extend_expiration && claims.pod && expiration == kWarnOnlyBoundTokenExpirationSeconds &&
        only_api_audiences(claims.audiences, config.api_audiences)) {
      claims.warn_after = std::chrono::seconds(expiration);
      claims.expiration = std::chrono::seconds(kExpirationExtensionSeconds);
    }

    const auto now = std::chrono::time_point_cast<std::chrono::seconds>(std::chrono::system_clock::now());
    authentication::IssuedToken issued = config.issuer->issue(claims, now);
    json::object& metadata = registry::metadata_of(request);
    if (registry::meta_string(request, "name").empty()) metadata["name"] = name;
    if (registry::meta_string(request, "namespace").empty()) metadata["namespace"] = namespace_;
    metadata["creationTimestamp"] = schema::format_rfc3339(now.time_since_epoch().count());
    request["status"] = json::object{
        {"token", std::move(issued.token)},
        {"expirationTimestamp",
         schema::format_rfc3339(std::chrono::duration_cast<std::chrono::seconds>(issued.expires_at.time_since_epoch()).count())}};
    co_return std::move(request);
  };
  return {"token", "authentication.k8s.io", "v1", "TokenRequest", std::move(create)};
}

}  // namespace kapi::apis::core
