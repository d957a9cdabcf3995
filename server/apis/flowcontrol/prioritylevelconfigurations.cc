// flowcontrol.apiserver.k8s.io/v1 PriorityLevelConfiguration (pkg/registry/flowcontrol/prioritylevelconfiguration,
// SetDefaults_LimitedPriorityLevelConfiguration and friends, ValidatePriorityLevelConfiguration,
// printPriorityLevelConfiguration): the levels API Priority and Fairness shares the server's concurrency among.
#include "server/apis/flowcontrol/flowcontrol_validation.h"
#include "server/apis/resource_storage.h"
#include "server/registry/json_fields.h"
#include "server/registry/object_meta.h"

#include <boost/json.hpp>

namespace kapi::apis {
namespace {

namespace json = boost::json;
using registry::fields::object_at;

// A number cell as the printer's int32 prints, 0 when absent.
json::value number_at(const json::object* object, std::string_view key) {
  const json::value* value = object ? object->if_contains(key) : nullptr;
  if (value && (value->is_int64() || value->is_uint64())) return *value;
  return 0;
}

class PriorityLevelConfigurationStrategy final : public registry::Strategy {
 public:
  // PrepareForCreate clears the status; the decoder's v1 defaults come here, as kapi decodes without them.
  void apply_scheme_defaults(json::object& object) const override { apf::apply_priority_level_defaults(object); }
  void prepare_for_create(json::object& object) const override {
    object["status"] = json::object();
    apf::apply_priority_level_defaults(object);
  }
  // PrepareForUpdate keeps the stored status (generation follows spec changes through tracks_generation).
  void prepare_for_update(json::object& object, const json::object& old) const override {
    apf::apply_priority_level_defaults(object);
    if (const json::value* status = old.if_contains("status")) object["status"] = *status;
    else object.erase("status");
  }
  validation::ErrorList validate(const json::object& object) const override {
    return apf::validate_priority_level(object);
  }
  bool tracks_generation() const override { return true; }

  std::vector<registry::TableColumn> table_columns() const override {
    return {registry::name_column(),
            {"Type", "string", "",
             "`type` indicates whether this priority level is subject to limitation on request execution.  A value "
             "of `\"Exempt\"` means that requests of this priority level are not subject to a limit (and thus are "
             "never queued) and do not detract from the capacity made available to other priority levels.  A value "
             "of `\"Limited\"` means that (a) requests of this priority level _are_ subject to limits and (b) some "
             "of the server's limited capacity is made available exclusively to this priority level.\nRequired.",
             0},
            {"NominalConcurrencyShares", "string", "",
             "`nominalConcurrencyShares` (NCS) contributes to the computation of the NominalConcurrencyLimit "
             "(NominalCL) of this level.\nThis is the number of execution seats available at this priority level.\n"
             "This is used both for requests dispatched from this priority level as well as requests dispatched "
             "from other priority levels borrowing seats from this level.\nThe server's concurrency limit "
             "(ServerCL) is divided among the Limited priority levels in proportion to their NCS values:\n\n"
             "NominalCL(i)  = ceil( ServerCL * NCS(i) / sum_ncs ) sum_ncs = sum[priority level k] NCS(k)\n\n"
             "Bigger numbers mean a larger nominal concurrency limit, at the expense of every other priority "
             "level.\n\nIf not specified, this field defaults to a value of 30.\n\nSetting this field to zero "
             "supports the construction of a \"jail\" for this priority level that is used to hold some request(s)",
             0},
            {"Queues", "string", "",
             "`queues` is the number of queues for this priority level. The queues exist independently at each "
             "apiserver. The value must be positive.  Setting it to 1 effectively precludes shufflesharding and "
             "thus makes the distinguisher method of associated flow schemas irrelevant.  This field has a default "
             "value of 64.",
             0},
            {"HandSize", "string", "",
             "`handSize` is a small positive number that configures the shuffle sharding of requests into queues.  "
             "When enqueuing a request at this priority level the request's flow identifier (a string pair) is "
             "hashed and the hash value is used to shuffle the list of queues and deal a hand of the size specified "
             "here.  The request is put into one of the shortest queues in that hand.\n`handSize` must be no larger "
             "than `queues`, and should be significantly smaller (so that a few heavy flows do not saturate most of "
             "the queues).  See the user-facing documentation for more extensive guidance on setting this field.  "
             "This field has a default value of 8.",
             0},
            {"QueueLengthLimit", "string", "",
             "`queueLengthLimit` is the maximum number of requests allowed to be waiting in a given queue of this "
             "priority level at a time; excess requests are rejected.  This value must be positive.  If not "
             "specified, it will be defaulted to 50.",
             0},
            registry::age_column()};
  }
  // NOMINALCONCURRENCYSHARES and the queuing columns of a limited level; <none> for an exempt one or a level that
  // rejects.
  json::array table_cells(const json::object& object) const override {
    const json::object* spec = object_at(&object, "spec");
    const json::object* limited = object_at(spec, "limited");
    json::value shares = "<none>", queues = "<none>", hand_size = "<none>", queue_length_limit = "<none>";
    if (limited) {
      shares = number_at(limited, "nominalConcurrencyShares");
      if (const json::object* queuing = object_at(object_at(limited, "limitResponse"), "queuing")) {
        queues = number_at(queuing, "queues");
        hand_size = number_at(queuing, "handSize");
        queue_length_limit = number_at(queuing, "queueLengthLimit");
      }
    }
    return {json::string(registry::meta_string(object, "name")),
            json::string(spec ? registry::string_field(*spec, "type") : ""),
            std::move(shares),
            std::move(queues),
            std::move(hand_size),
            std::move(queue_length_limit),
            json::string(registry::age_of(object))};
  }
};

}  // namespace

ResourceStorage prioritylevelconfigurations() {
  // As kube's: cluster-scoped, no short name, no category, a status subresource.
  registry::ResourceDefinition definition{.group = "flowcontrol.apiserver.k8s.io", .version = "v1",
                                          .resource = "prioritylevelconfigurations",
                                          .kind = "PriorityLevelConfiguration",
                                          .singular = "prioritylevelconfiguration", .namespaced = false,
                                          .subresources = {"status"}};
  return {std::move(definition), std::make_shared<PriorityLevelConfigurationStrategy>()};
}

}  // namespace kapi::apis
