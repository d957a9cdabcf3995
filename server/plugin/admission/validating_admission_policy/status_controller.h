#pragma once
// The ValidatingAdmissionPolicy status controller (kube-controller-manager's
// pkg/controller/validatingadmissionpolicystatus), run inside kapi beside the plugin: for each policy whose
// generation its status has not observed, the type checking warnings and the generation are written to status.
#include "server/admission/plugin.h"
#include "server/registry/store.h"

#include <asio/awaitable.hpp>
#include <boost/json/object.hpp>

#include <atomic>
#include <memory>

namespace kapi::base { class Logger; }
namespace kapi::schema { class Catalog; }

namespace kapi::admission::policy {

// The status a policy should have (observedGeneration and typeChecking as the controller applies them), or
// nullopt when its status already observed its generation.
std::optional<boost::json::object> reconciled_status(const boost::json::object& policy, const StoreLookup& stores,
                                                     const CustomSchemaLookup& custom_schemas,
                                                     const schema::Catalog& catalog);

class StatusController {
 public:
  StatusController(registry::Store& policies, StoreLookup stores, CustomSchemaLookup custom_schemas,
                   const schema::Catalog& catalog, base::Logger& logger,
                   std::shared_ptr<const std::atomic<bool>> stopping);

  // Follows the policies until `stopping` is set.
  asio::awaitable<void> run();

 private:
  asio::awaitable<void> reconcile(const boost::json::object& policy);

  registry::Store& policies_;
  StoreLookup stores_;
  CustomSchemaLookup custom_schemas_;
  const schema::Catalog& catalog_;
  base::Logger& logger_;
  std::shared_ptr<const std::atomic<bool>> stopping_;
};

}  // namespace kapi::admission::policy
