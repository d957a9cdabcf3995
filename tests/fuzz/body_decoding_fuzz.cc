// Fuzzes the bodies of creates and updates as kube-apiserver's handlers decode them (handlers/create.go, update.go
// over the JSON, YAML and protobuf serializers in strict or lenient mode): server/endpoints/handlers/body.h decodes
// the body by its Content-Type and conforms it to the built-in kind's schema (unknown fields dropped, defaults
// filled, values of the wrong type refused), then fieldValidation decides what unknown and duplicate fields do.
//
// The first input byte chooses the request: its low two bits fieldValidation (Strict, Warn, Ignore, or none, which
// is Warn), the next two the Content-Type (JSON twice, YAML, protobuf), the high four the resource from kResources;
// the rest is the body. A protobuf body that is no envelope is taken as the raw message of one naming the resource's
// kind, so that mutations reach the messages.
//
// Decoding documents ApiError 400 for a body it refuses; anything else escaping, a crash, a sanitizer report or a
// timeout is a finding. So is a body that decodes but could not be stored: the registry writes built-in kinds in
// protobuf (--storage-media-type's default), so what conforms to the schema must encode. And a conformed object
// must be a fixed point of conforming, and Strict and Ignore never warn.
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include <boost/json/serialize.hpp>

#include "request/exchange.h"
#include "server/apierrors/errors.h"
#include "server/endpoints/handlers/body.h"
#include "server/registry/resource.h"
#include "server/schema/catalog.h"
#include "server/schema/decoding.h"
#include "server/schema/transcoder.h"
#include "tests/fuzz/finding.h"

namespace {

using kapi::fuzz::finding;

namespace json = boost::json;
namespace handlers = kapi::endpoints::handlers;
using kapi::registry::ResourceDefinition;

ResourceDefinition resource(std::string group, std::string version, std::string resource, std::string kind) {
  return {.group = std::move(group), .version = std::move(version), .resource = std::move(resource),
          .kind = std::move(kind)};
}

// Kinds with the special types (times, quantities, int-or-strings, raw extensions), +default markers, maps and lists
// of structs, and +inline members.
const std::array<ResourceDefinition, 16> kResources{
    resource("", "v1", "pods", "Pod"),
    resource("", "v1", "configmaps", "ConfigMap"),
    resource("apps", "v1", "deployments", "Deployment"),
    resource("", "v1", "services", "Service"),
    resource("", "v1", "secrets", "Secret"),
    resource("batch", "v1", "cronjobs", "CronJob"),
    resource("", "v1", "namespaces", "Namespace"),
    resource("", "v1", "nodes", "Node"),
    resource("", "v1", "events", "Event"),
    resource("coordination.k8s.io", "v1", "leases", "Lease"),
    resource("autoscaling", "v2", "horizontalpodautoscalers", "HorizontalPodAutoscaler"),
    resource("rbac.authorization.k8s.io", "v1", "clusterroles", "ClusterRole"),
    resource("networking.k8s.io", "v1", "ingresses", "Ingress"),
    resource("apps", "v1", "statefulsets", "StatefulSet"),
    resource("", "v1", "persistentvolumes", "PersistentVolume"),
    resource("admissionregistration.k8s.io", "v1", "validatingadmissionpolicies", "ValidatingAdmissionPolicy"),
};

constexpr std::array<std::string_view, 4> kFieldValidation{"Strict", "Warn", "Ignore", ""};
constexpr std::array<std::string_view, 4> kContentTypes{"application/json", "application/json; charset=utf-8",
                                                        "application/yaml", "application/vnd.kubernetes.protobuf"};

const kapi::schema::Catalog& catalog() {
  static const kapi::schema::Catalog catalog = kapi::schema::Catalog::builtin();
  return catalog;
}

// What the registry does next with a decoded body: stamps its kind (Store::set_type_meta) and writes it.
void check_storable(json::object object, const ResourceDefinition& definition) {
  object["kind"] = definition.kind;
  object["apiVersion"] = definition.group_version();
  try {
    kapi::schema::Transcoder(catalog()).encode(object);
  } catch (const kapi::schema::TranscodeError& e) {
    finding(std::string("a decoded body cannot be stored: ") + e.what(), json::serialize(object));
  }
}

void check_fixed_point(const json::object& object, const ResourceDefinition& definition) {
  json::object again = object;
  try {
    const auto unknown = kapi::schema::conform(
        catalog(), catalog().kind(definition.group, definition.version, definition.kind), again);
    if (!unknown.empty()) finding("a conformed body has unknown fields again", unknown.front());
  } catch (const kapi::apierrors::ApiError& e) {
    finding(std::string("a conformed body does not conform again: ") + e.what(), json::serialize(object));
  }
  if (again != object) finding("conforming a conformed body changes it", json::serialize(object));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view validation = kFieldValidation[data[0] & 3];
  const std::string_view content_type = kContentTypes[(data[0] >> 2) & 3];
  const ResourceDefinition& definition = kResources[(data[0] >> 4) % kResources.size()];

  kapi::http::Request request;
  request.method = "POST";
  request.body.assign(reinterpret_cast<const char*>(data) + 1, size - 1);
  request.headers.add("Content-Type", std::string(content_type));
  if (!validation.empty()) request.query = kapi::http::QueryParams::parse("fieldValidation=" + std::string(validation));
  if (content_type == kapi::schema::kProtobufMediaType && !request.body.starts_with(kapi::schema::kProtobufPrefix))
    request.body = kapi::schema::write_envelope({.type_meta = {definition.group_version(), definition.kind},
                                                 .raw = std::move(request.body)});
  kapi::request::Exchange exchange{.request = request, .response = nullptr, .context = {}};
  const handlers::BodyTarget target{exchange, catalog(), definition};

  handlers::DecodedBody body;
  try {
    body = handlers::decode_body(target);
    handlers::conform_decoded(target, body);
  } catch (const kapi::apierrors::ApiError& e) {
    if (e.status().code != 400) finding("refused with " + std::to_string(e.status().code) + ", not 400", e.what());
    kapi::apierrors::to_json(e.status());
    return 0;
  }
  if (!exchange.context.warnings.empty() && validation != "Warn" && !validation.empty())
    finding("fieldValidation=" + std::string(validation) + " warned", exchange.context.warnings.front());
  check_fixed_point(body.object, definition);
  check_storable(std::move(body.object), definition);
  return 0;
}
