// certificates.k8s.io/v1 CertificateSigningRequest (pkg/registry/certificates/certificates/strategy.go and
// storage.go, pkg/apis/certificates/validation, printers.printCertificateSigningRequest, and the
// CertificateSubjectRestriction, CertificateApproval and CertificateSigning admission plugins,
// plugin/pkg/admission/certificates).
// The requestor is the authenticated user, written into spec on create; spec is immutable; /status sets the
// certificate and non-approval conditions, /approval the Approved and Denied conditions. Signing is the csrsigning
// controller's, not the API server's.
#include "server/apierrors/errors.h"
#include "server/apis/certificates/certificates.h"
#include "server/apis/certificates/csr_validation.h"
#include "server/registry/json_fields.h"
#include "server/registry/object_meta.h"

#include <boost/json.hpp>

#include <algorithm>

namespace kapi::apis {
namespace {

namespace json = boost::json;
using certificates::CsrWrite;
using registry::fields::object_or_empty;
using registry::fields::string_at;

json::object& member_object(json::object& object, std::string_view key) {
  json::value& member = object[key];
  return member.is_object() ? member.as_object() : member.emplace_object();
}

json::array* conditions_of(json::object& csr) {
  json::value* conditions = member_object(csr, "status").if_contains("conditions");
  return conditions && conditions->is_array() ? &conditions->as_array() : nullptr;
}

std::vector<std::size_t> indices_of_type(const json::array& conditions, std::string_view type) {
  std::vector<std::size_t> indices;
  for (std::size_t i = 0; i < conditions.size(); ++i)
    if (conditions[i].is_object() && string_at(conditions[i].as_object(), "type") == type) indices.push_back(i);
  return indices;
}

bool time_unset(const json::object& condition, std::string_view key) {
  const json::value* value = condition.if_contains(key);
  return !value || value->is_null() || (value->is_string() && value->as_string().empty());
}

// populateConditionTimestamps: a condition without lastUpdateTime gets now; without lastTransitionTime, the
// stored condition's of the same type and status, or now.
void populate_condition_timestamps(json::object& csr, const json::object& old) {
  json::array* conditions = conditions_of(csr);
  if (!conditions) return;
  const std::string now = registry::rfc3339_now();
  const json::array& old_conditions = registry::fields::array_or_empty(object_or_empty(old, "status"), "conditions");
  for (auto& value : *conditions) {
    if (!value.is_object()) continue;
    json::object& condition = value.as_object();
    if (time_unset(condition, "lastUpdateTime")) condition["lastUpdateTime"] = now;
    if (!time_unset(condition, "lastTransitionTime")) continue;
    std::string transition = now;
    for (const auto& old_value : old_conditions) {
      if (!old_value.is_object()) continue;
      const json::object& old_condition = old_value.as_object();
      if (string_at(old_condition, "type") == string_at(condition, "type") &&
          string_at(old_condition, "status") == string_at(condition, "status") &&
          !time_unset(old_condition, "lastTransitionTime")) {
        transition = string_at(old_condition, "lastTransitionTime");
        break;
      }
    }
    condition["lastTransitionTime"] = transition;
  }
}

// preserveConditionInstances: a /status write keeps the stored conditions of `type` when it has as many.
void preserve_condition_instances(json::object& csr, const json::object& old, std::string_view type) {
  json::array* conditions = conditions_of(csr);
  const json::array& old_conditions = registry::fields::array_or_empty(object_or_empty(old, "status"), "conditions");
  const std::vector<std::size_t> now = conditions ? indices_of_type(*conditions, type) : std::vector<std::size_t>{};
  const std::vector<std::size_t> before = indices_of_type(old_conditions, type);
  if (now.size() != before.size()) return;  // added or removed: validation refuses it
  for (std::size_t i = 0; i < now.size(); ++i) (*conditions)[now[i]] = old_conditions[before[i]];
}

// extractCSRStatus: Denied, Approved or Pending, then ",Failed" and ",Issued" as they apply.
std::string condition_cell(const json::object& csr) {
  bool approved = false, denied = false, failed = false;
  const json::object& status = object_or_empty(csr, "status");
  for (const auto& condition : registry::fields::array_or_empty(status, "conditions")) {
    if (!condition.is_object()) continue;
    const std::string_view type = string_at(condition.as_object(), "type");
    approved = approved || type == "Approved";
    denied = denied || type == "Denied";
    failed = failed || type == "Failed";
  }
  std::string cell = denied ? "Denied" : approved ? "Approved" : "Pending";
  if (failed) cell += ",Failed";
  if (!string_at(status, "certificate").empty()) cell += ",Issued";
  return cell;
}

class CertificateSigningRequestStrategy final : public registry::Strategy {
 public:
  // ValidateCertificateRequestName accepts any name ("We don't care what you call your certificate requests"):
  // kubelets name theirs node-csr-<base64url digest>, with capitals and '_'. kapi still needs one a URL can
  // address.
  bool name_is_path_segment() const override { return true; }
  void prepare_for_create(json::object& object) const override {
    json::object& spec = member_object(object, "spec");
    for (std::string_view requestor : {"username", "uid", "groups", "extra"}) spec.erase(requestor);
    object["status"] = json::object();  // users cannot create pre-approved requests
  }
  void record_requestor(json::object& object, const request::UserInfo& user) const override {
    json::object& spec = member_object(object, "spec");
    if (!user.name.empty()) spec["username"] = user.name;
    if (!user.uid.empty()) spec["uid"] = user.uid;
    if (!user.groups.empty()) spec["groups"] = json::value_from(user.groups);
    if (!user.extra.empty()) spec["extra"] = json::value_from(user.extra);
  }
  // Certificate requests are immutable after creation except through their subresources.
  // csrStrategy.GetResetFields: the main resource changes neither spec nor status (PrepareForUpdate restores them).
  std::optional<std::vector<std::vector<std::string>>> reset_fields(std::string_view subresource) const override {
    if (subresource.empty()) return std::vector<std::vector<std::string>>{{"spec"}, {"status"}};
    return std::nullopt;
  }
  void prepare_for_update(json::object& object, const json::object& old) const override {
    for (std::string_view owned : {"spec", "status"}) {
      if (const json::value* value = old.if_contains(owned)) object[owned] = *value;
      else object.erase(owned);
    }
  }
  void prepare_for_subresource_update(std::string_view subresource, json::object& object,
                                      const json::object& old) const override {
    if (const json::value* spec = old.if_contains("spec")) object["spec"] = *spec;
    if (subresource == "status") {
      // Approval is /approval's: the stored Approved and Denied conditions stay.
      preserve_condition_instances(object, old, "Approved");
      preserve_condition_instances(object, old, "Denied");
      populate_condition_timestamps(object, old);
    } else if (subresource == "approval") {
      populate_condition_timestamps(object, old);
      // Only the conditions change: the rest of status (the certificate) stays as stored.
      json::object status = object_or_empty(old, "status");
      if (const json::value* conditions = object_or_empty(object, "status").if_contains("conditions"))
        status["conditions"] = *conditions;
      else
        status.erase("conditions");
      object["status"] = std::move(status);
    }
  }
  validation::ErrorList validate(const json::object& object) const override {
    return certificates::validate_csr_create(object);
  }
  validation::ErrorList validate_update(const json::object& object, const json::object& old) const override {
    return certificates::validate_csr_update(object, old, CsrWrite::Main);
  }
  validation::ErrorList validate_subresource_update(std::string_view subresource, const json::object& object,
                                                    const json::object& old) const override {
    const CsrWrite write = subresource == "approval" ? CsrWrite::Approval
                           : subresource == "status" ? CsrWrite::Status
                                                     : CsrWrite::Main;
    return certificates::validate_csr_update(object, old, write);
  }
  std::vector<std::string> selectable_field_names() const override { return {"spec.signerName"}; }
  void selectable_fields(const json::object& object, registry::SelectableFields& fields) const override {
    fields["spec.signerName"] = string_at(object_or_empty(object, "spec"), "signerName");
  }

  std::vector<registry::TableColumn> table_columns() const override {
    return {registry::name_column(),
            registry::age_column(),
            {"SignerName", "string", "",
             "Requested signer for the request. It is a qualified name in the form: `scope-hostname.io/name`. If "
             "empty, it will be defaulted:\n 1. If it's a kubelet client certificate, it is assigned\n    "
             "\"kubernetes.io/kube-apiserver-client-kubelet\".\n 2. If it's a kubelet serving certificate, it is "
             "assigned\n    \"kubernetes.io/kubelet-serving\".\n 3. Otherwise, it is assigned "
             "\"kubernetes.io/legacy-unknown\".\nDistribution of trust for signers happens out of band. You can "
             "select on this field using `spec.signerName`.",
             0},
            {"Requestor", "string", "", "Base64-encoded PKCS#10 CSR data", 0},
            {"RequestedDuration", "string", "",
             "expirationSeconds is the requested duration of validity of the issued certificate. The certificate "
             "signer may issue a certificate with a different validity duration so a client must check the delta "
             "between the notBefore and and notAfter fields in the issued certificate to determine the actual "
             "duration.\n\nThe v1.22+ in-tree implementations of the well-known Kubernetes signers will honor this "
             "field as long as the requested duration is not greater than the maximum duration they will honor per "
             "the --cluster-signing-duration CLI flag to the Kubernetes controller manager.\n\nCertificate signers "
             "may not honor this field for various reasons:\n\n  1. Old signer that is unaware of the field (such as "
             "the in-tree\n     implementations prior to v1.22)\n  2. Signer whose configured maximum is shorter than "
             "the requested duration\n  3. Signer whose configured minimum is longer than the requested "
             "duration\n\nThe minimum valid value for expirationSeconds is 600, i.e. 10 minutes.",
             0},
            {"Condition", "string", "", "Conditions applied to the request, such as approval or denial.", 0}};
  }
  json::array table_cells(const json::object& object) const override {
    const json::object& spec = object_or_empty(object, "spec");
    const std::string_view signer = string_at(spec, "signerName");
    std::string duration = "<none>";
    if (std::optional<std::int64_t> seconds = registry::fields::int_at(spec, "expirationSeconds"))
      duration = registry::human_duration(std::chrono::seconds(*seconds));
    return {json::string(registry::meta_string(object, "name")),
            json::string(registry::age_of(object)),
            json::string(signer.empty() ? "<none>" : signer),
            json::string(string_at(spec, "username")),
            json::string(duration),
            json::string(condition_cell(object))};
  }
};

}  // namespace

ResourceStorage certificatesigningrequests() {
  registry::ResourceDefinition definition{.group = std::string(certificates::kGroupName), .version = "v1",
                                          .resource = "certificatesigningrequests",
                                          .kind = "CertificateSigningRequest",
                                          .singular = "certificatesigningrequest", .namespaced = false,
                                          .short_names = {"csr"}, .subresources = {"approval", "status"}};
  return {std::move(definition), std::make_shared<CertificateSigningRequestStrategy>()};
}

}  // namespace kapi::apis
