#pragma once
// The controllers apiextensions-apiserver runs over CustomResourceDefinitions, in one loop: naming (status.
// acceptedNames and the NamesAccepted condition, refusing names another CRD of the group holds), establishing
// (Established once the names are accepted), serving (the custom resource server serves the established CRDs) and
// finalizing (a terminating CRD's custom resources are deleted, then its customresourcecleanup finalizer removed).
#include "server/apiextensions/custom_resource_server.h"
#include "server/registry/store.h"

#include <asio/any_io_executor.hpp>
#include <asio/awaitable.hpp>
#include <asio/steady_timer.hpp>
#include <boost/json/object.hpp>

#include <atomic>
#include <map>
#include <functional>
#include <memory>
#include <string>

namespace kapi::base {
class Logger;
}

namespace kapi::apiextensions {

class CrdController {
 public:
  CrdController(registry::Store& crds, CustomResourceServer& server, base::Logger& logger,
                std::shared_ptr<const std::atomic<bool>> stopping);

  // Starts following CRDs on a strand of `executor`; runs until `stopping` is set. `served` runs (on the strand)
  // each time the set of served CRDs has been handed to the server, the first time included.
  void start(asio::any_io_executor executor, std::function<void()> served = {});
  // The CRDs stored at start are served (kube's crd-informer-synced post-start hook).
  bool synced() const { return synced_->load(); }

 private:
  asio::awaitable<void> follow();
  asio::awaitable<void> work();
  void wake();
  asio::awaitable<void> reconcile();
  // Deletes the CRD's custom resources; true when none is left and the finalizer may go.
  asio::awaitable<bool> delete_instances(const boost::json::object& crd);
  asio::awaitable<void> write(const std::string& name, bool status,
                              std::function<void(boost::json::object&)> change);

  registry::Store& crds_store_;
  CustomResourceServer& server_;
  base::Logger& logger_;
  std::shared_ptr<const std::atomic<bool>> stopping_;
  std::shared_ptr<std::atomic<bool>> synced_ = std::make_shared<std::atomic<bool>>(false);
  std::function<void()> served_;
  // Touched on the strand only.
  std::map<std::string, boost::json::object> crds_;
  bool listed_ = false;
  bool dirty_ = false;
  std::unique_ptr<asio::steady_timer> wake_;
};

}  // namespace kapi::apiextensions
