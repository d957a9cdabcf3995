// Fuzzes server-side apply as kube-apiserver's apply handler runs it (handlers/patch.go's applyPatcher over
// k8s.io/apimachinery/pkg/util/managedfields): an arbitrary body decoded as an apply configuration
// (decode_apply_configuration, server/endpoints/handlers/body.h), then applied by a manager onto a fixed live object
// by the kind's FieldManager (server/fieldmanager/field_manager.h: the last-applied, managers' cap, managedFields
// and structured-merge stages, as the installer builds them), for a ConfigMap, a Deployment and a Service whose
// managedFields hold a kubectl create, a kubectl label and an earlier apply.
//
// The first input byte chooses the kind (its low two bits), whether the apply is forced, whether the manager is the
// earlier applier ("kubectl") or a new one, and whether the object is created through the apply (no live object);
// the rest is the body, YAML or JSON.
//
// Decoding documents ApiError 400; applying documents 400, 409 Conflict, and 500 for a configuration that does not
// fit the type ("failed to create typed patch object"), as kube 1.32 answers. Anything else, a crash, a sanitizer
// report or a timeout is a finding. So is an applied object that cannot be stored (encoded for storage as the
// registry writes built-in kinds), an apply that is not idempotent (the same configuration applied again by the
// same manager must succeed and change nothing, when its values fit their Go types and the object's managers are
// tracked), and an update after it that fails.
#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include "server/apierrors/errors.h"
#include "server/endpoints/handlers/body.h"
#include "server/fieldmanager/field_manager.h"
#include "server/fieldmanager/type_converter.h"
#include "server/schema/catalog.h"
#include "server/schema/decoding.h"
#include "server/schema/transcoder.h"
#include "tests/fuzz/finding.h"

namespace {

using kapi::fuzz::finding;

namespace json = boost::json;
namespace fieldmanager = kapi::fieldmanager;
namespace smd = kapi::structured_merge;
using kapi::apierrors::ApiError;

const kapi::schema::Catalog& catalog() {
  static const kapi::schema::Catalog catalog = kapi::schema::Catalog::builtin();
  return catalog;
}

struct Kind {
  std::string group, version, kind;
  bool has_status;          // the main resource resets status, as kube's status strategies do
  std::string created;      // what kubectl create sent
  std::string applied;      // what kubectl apply --server-side sent later
};

// The kinds and their histories, from the field manager tests.
const std::array<Kind, 3> kKinds{{
    {"", "v1", "ConfigMap", false,
     R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm","namespace":"default"},"data":{"a":"1"}})",
     R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm","namespace":"default",
         "annotations":{"owner":"kubectl"}},"data":{"a":"1","b":"2"},"binaryData":{"c":"AAEC"}})"},
    {"apps", "v1", "Deployment", true,
     R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"default",
         "labels":{"app":"web"}},"spec":{"replicas":1,"selector":{"matchLabels":{"app":"web"}},
         "template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"app","image":"nginx:1",
         "ports":[{"containerPort":80,"protocol":"TCP"}]}]}}},"status":{"replicas":1}})",
     R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"default"},
         "spec":{"replicas":3,"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},
         "spec":{"containers":[{"name":"app","image":"nginx:2","env":[{"name":"A","value":"1"}]},
         {"name":"sidecar","image":"envoy:1"}]}}}})"},
    {"", "v1", "Service", true,
     R"({"apiVersion":"v1","kind":"Service","metadata":{"name":"svc","namespace":"default"},
         "spec":{"selector":{"app":"web"},"ports":[{"name":"http","port":80,"targetPort":8080,"protocol":"TCP"}]}})",
     R"({"apiVersion":"v1","kind":"Service","metadata":{"name":"svc","namespace":"default"},
         "spec":{"ports":[{"name":"http","port":80,"protocol":"TCP"},{"name":"udp","port":53,"protocol":"UDP"}],
         "type":"ClusterIP"}})"},
}};

// What kubectl label does to an object.
void set_label(json::object& object, std::string_view key, std::string_view value) {
  json::value& metadata = object["metadata"];
  if (!metadata.is_object()) metadata.emplace_object();
  json::value& labels = metadata.as_object()["labels"];
  if (!labels.is_object()) labels.emplace_object();
  labels.as_object()[key] = value;
}

// A kind's FieldManager, as builtin_field_managers (server/endpoints/field_managers.cc) makes it for the main
// resource, and its live object after its history.
struct Resource {
  std::unique_ptr<fieldmanager::FieldManager> manager;
  json::object live;
};

Resource make(const Kind& kind) {
  static const auto schema = fieldmanager::schema_from_catalog(catalog());
  const std::string api_version = kind.group.empty() ? kind.version : kind.group + "/" + kind.version;
  const auto* message = catalog().kind(kind.group, kind.version, kind.kind);
  fieldmanager::FieldManager::Options options;
  options.schema = schema;
  options.types[api_version] = fieldmanager::kind_type(*schema, catalog(), kind.group, kind.version, kind.kind);
  options.api_version = api_version;
  options.kind = kind.kind;
  options.new_object = kapi::schema::Transcoder(catalog()).to_json(*message, "").as_object();
  options.defaulter = [message](json::object& object) {
    kapi::schema::conform(catalog(), message, object, kapi::schema::IntegerOverflow::kConvert);
  };
  // A fixed clock (2026-12-01T21:00:00Z), so that an input means the same on every run.
  options.clock = [] { return std::chrono::system_clock::time_point(std::chrono::seconds(1796158800)); };
  if (kind.has_status) {
    smd::Path status;
    status.push_back(smd::PathElement::field("status"));
    smd::Set reset;
    reset.insert(status);
    options.reset_fields[api_version] = reset;
  }
  Resource resource{std::make_unique<fieldmanager::FieldManager>(std::move(options)), {}};
  json::object created = resource.manager->update(nullptr, json::parse(kind.created).as_object(), "kubectl-create");
  json::object labelled = created;
  set_label(labelled, "team", "a");
  labelled = resource.manager->update(&created, labelled, "kubectl-label");
  resource.live = resource.manager->apply(&labelled, json::parse(kind.applied).as_object(), "kubectl", true);
  return resource;
}

Resource& resource(std::size_t index) {
  static std::array<Resource, 3> resources{make(kKinds[0]), make(kKinds[1]), make(kKinds[2])};
  return resources[index];
}

// Whether the configuration's values fit its kind's Go types, as a JSON body's must. One that does not (an int32
// field given 2^40) is converted by kube's unstructured converter, as by kapi, into a value the configuration no
// longer matches, so that applying it again is no longer the same apply.
bool fits_its_types(const json::object& config, std::size_t kind) {
  const Kind& k = kKinds[kind];
  json::object copy = config;
  try {
    kapi::schema::conform(catalog(), catalog().kind(k.group, k.version, k.kind), copy);
    return true;
  } catch (const ApiError&) {
    return false;
  }
}

// Whether the object's managers are tracked. A configuration that owns nothing (apiVersion, kind and name only)
// leaves a created object with no managedFields, and then, as in kube, the next apply gives what the object holds
// to "before-first-apply": no longer the same apply.
bool tracked(const json::object& object) {
  const auto* metadata = object.if_contains("metadata");
  const auto* fields = metadata && metadata->is_object() ? metadata->get_object().if_contains("managedFields") : nullptr;
  return fields && fields->is_array() && !fields->get_array().empty();
}

// What the registry does with the applied object: writes it in protobuf.
void check_storable(const json::object& object) {
  try {
    kapi::schema::Transcoder(catalog()).encode(object);
  } catch (const kapi::schema::TranscodeError& e) {
    finding(std::string("an applied object cannot be stored: ") + e.what(), json::serialize(object));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::size_t kind = (data[0] & 3) % kKinds.size();
  const bool force = (data[0] & 4) != 0;
  const std::string manager = (data[0] & 8) != 0 ? "kubectl" : "fuzzer";
  const bool create = (data[0] & 16) != 0;
  const std::string body(reinterpret_cast<const char*>(data) + 1, size - 1);
  Resource& target = resource(kind);
  const json::object* live = create ? nullptr : &target.live;

  kapi::endpoints::handlers::ApplyConfiguration configuration;
  try {
    configuration = kapi::endpoints::handlers::decode_apply_configuration(body);
  } catch (const ApiError& e) {
    if (e.status().code != 400) finding("decoding refused with " + std::to_string(e.status().code), e.what());
    return 0;
  }

  json::object applied;
  try {
    applied = target.manager->apply(live, configuration.object, manager, force);
  } catch (const ApiError& e) {
    const int code = e.status().code;
    const bool documented = code == 400 || code == 409 ||
                            (code == 500 && e.status().message.starts_with("failed to create typed patch object"));
    if (!documented) finding("apply refused with " + std::to_string(code), e.what());
    kapi::apierrors::to_json(e.status());
    return 0;
  }
  check_storable(applied);

  if (tracked(applied) && fits_its_types(configuration.object, kind)) {
    json::object again;
    try {
      again = target.manager->apply(&applied, configuration.object, manager, force);
    } catch (const ApiError& e) {
      finding(std::string("the same apply again failed: ") + e.what(), json::serialize(applied));
    }
    if (again != applied)
      finding("the same apply again changed the object", json::serialize(applied) + " became " + json::serialize(again));
  }

  json::object labelled = applied;
  set_label(labelled, "fuzzed", "yes");
  target.manager->update(&applied, labelled, "kubectl-label");
  return 0;
}
