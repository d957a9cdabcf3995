#include "server/apis/core/pod_references.h"

#include "server/registry/json_fields.h"

namespace kapi::apis::core {
namespace {

using namespace registry::fields;

// podutil.VisitContainers over initContainers, containers and ephemeralContainers.
template <typename Visit>
void each_container(const json::object& spec, Visit visit) {
  for (std::string_view list : {"initContainers", "containers", "ephemeralContainers"})
    for_each_object(&spec, list, [&](const json::object& container, std::size_t) { visit(container); });
}

void visit_named(const json::object* reference, std::string_view key,
                 const std::function<void(std::string_view)>& visit) {
  if (std::string_view name = string_at(reference, key); !name.empty()) visit(name);
}

}  // namespace

void visit_pod_secret_names(const json::object& spec, const std::function<void(std::string_view)>& visit) {
  for_each_object(&spec, "imagePullSecrets",
                  [&](const json::object& reference, std::size_t) { visit_named(&reference, "name", visit); });
  each_container(spec, [&](const json::object& container) {
    for_each_object(&container, "envFrom", [&](const json::object& source, std::size_t) {
      visit_named(object_at(source, "secretRef"), "name", visit);
    });
    for_each_object(&container, "env", [&](const json::object& variable, std::size_t) {
      visit_named(object_at(object_at(variable, "valueFrom"), "secretKeyRef"), "name", visit);
    });
  });
  for_each_object(&spec, "volumes", [&](const json::object& volume, std::size_t) {
    visit_named(object_at(volume, "secret"), "secretName", visit);
    visit_named(object_at(volume, "azureFile"), "secretName", visit);
    for (std::string_view plugin : {"cephfs", "cinder", "flexVolume", "rbd", "scaleIO", "iscsi", "storageos"})
      visit_named(object_at(object_at(volume, plugin), "secretRef"), "name", visit);
    visit_named(object_at(object_at(volume, "csi"), "nodePublishSecretRef"), "name", visit);
    for_each_object(object_at(volume, "projected"), "sources", [&](const json::object& source, std::size_t) {
      visit_named(object_at(source, "secret"), "name", visit);
    });
  });
}

void visit_pod_configmap_names(const json::object& spec, const std::function<void(std::string_view)>& visit) {
  each_container(spec, [&](const json::object& container) {
    for_each_object(&container, "envFrom", [&](const json::object& source, std::size_t) {
      visit_named(object_at(source, "configMapRef"), "name", visit);
    });
    for_each_object(&container, "env", [&](const json::object& variable, std::size_t) {
      visit_named(object_at(object_at(variable, "valueFrom"), "configMapKeyRef"), "name", visit);
    });
  });
  for_each_object(&spec, "volumes", [&](const json::object& volume, std::size_t) {
    visit_named(object_at(volume, "configMap"), "name", visit);
    for_each_object(object_at(volume, "projected"), "sources", [&](const json::object& source, std::size_t) {
      visit_named(object_at(source, "configMap"), "name", visit);
    });
  });
}

}  // namespace kapi::apis::core
