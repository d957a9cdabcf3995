#pragma once
// The aggregator's controllers over APIServices, in one loop on a strand: autoregistration (the local
// APIServices, see autoregistration.h) and availability (kube-aggregator's AvailableConditionController: a
// remote APIService is Available once its Service has a ready endpoint and the backend answers its discovery
// document; the condition's reason and message say which check failed). What the loop learns is published as an
// immutable snapshot the proxy routes and discovery read.
#include "base/wake_signal.h"
#include "server/aggregator/apiservice_model.h"
#include "server/proxy/backend.h"
#include "server/discovery/discovery.h"
#include "server/metrics/registry.h"
#include "server/registry/store.h"
#include "server/schema/openapi_handler.h"

#include <asio/any_io_executor.hpp>
#include <asio/awaitable.hpp>
#include <asio/steady_timer.hpp>
#include <asio/strand.hpp>
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace kapi::base {
class Logger;
}

namespace kapi::aggregator {

// The aggregator's front-proxy client certificate (--proxy-client-cert-file, --proxy-client-key-file): how
// backends know a request comes from it.
struct ProxyClientCertificate {
  std::filesystem::path cert_file;
  std::filesystem::path key_file;
};

// One remote APIService as requests see it.
struct RemoteApi {
  ApiService apiservice;                     // spec and the stored Available condition
  std::shared_ptr<asio::ssl::context> tls;   // verifies the backend with the caBundle, presents the proxy cert
  boost::json::array resources;              // the backend's last APIResourceList resources
};

// Remote APIServices by "<group>/<version>".
using RemoteApis = std::map<std::string, RemoteApi, std::less<>>;

class ApiServiceController {
 public:
  struct Config {
    registry::Store& apiservices;
    registry::Store* services = nullptr;   // core/v1, where remote APIServices' backends are found
    registry::Store* endpoints = nullptr;
    const discovery::DiscoveryService& local_discovery;  // the local group versions to register
    ProxyClientCertificate proxy_client;
    base::Logger& logger;
    metrics::Registry& metrics;  // aggregator_unavailable_apiservice{,_total}
    std::shared_ptr<const std::atomic<bool>> stopping;
    // How often an Available backend is checked again; an unavailable one is checked every second.
    std::chrono::milliseconds probe_interval{5000};
  };
  explicit ApiServiceController(Config config);

  // Starts on a strand of `executor`; local APIServices are registered once `local_apis_synced` says the CRDs
  // stored at start are served (so the first pass does not delete a CRD's APIService).
  void start(asio::any_io_executor executor, std::function<bool()> local_apis_synced);
  // The local group versions changed (the CRDs served, at start and when one comes or goes): their APIServices are
  // registered now rather than at the next tick, as kube's crdRegistrationController follows its informer. From any
  // thread; nothing before start().
  void local_apis_changed();

  std::shared_ptr<const RemoteApis> remote() const;
  // Whether any APIService is remote: most servers have none, and their requests need not look further.
  bool has_remote() const { return has_remote_.load(std::memory_order_acquire); }
  // The OpenAPI v3 documents the available backends publish for their group versions.
  std::shared_ptr<const kapi::schema::DynamicOpenApi> openapi() const;
  // Every local APIService has been registered once (kube's autoregister-completion check, roughly).
  bool registered() const { return registered_->load(); }

 private:
  struct Probed {
    std::string spec;  // the spec last checked, serialized
    std::chrono::steady_clock::time_point at{};
    bool available = false;
    boost::json::array resources;
    std::string tls_key;  // what `tls` was made from
    std::shared_ptr<asio::ssl::context> tls;
    std::optional<kapi::schema::OpenApiDocument> openapi_v3;  // of its group version, when the backend has one
    std::optional<boost::json::object> openapi_v2;            // the backend's whole Swagger 2.0 document
    std::chrono::steady_clock::time_point openapi_at{};
  };
  struct Check {
    std::string status, reason, message;
    boost::json::array resources;
  };

  asio::awaitable<void> follow();
  asio::awaitable<void> work(std::function<bool()> local_apis_synced);
  asio::awaitable<void> register_local_apiservices();
  asio::awaitable<void> check_remote_apiservices();
  asio::awaitable<Check> check(const ApiService& apiservice, Probed& probed);
  asio::awaitable<void> write_status(const std::string& name, const Check& check);
  // Fetches the backend's OpenAPI v3 document of the APIService's group version and its Swagger 2.0 document
  // (kube's aggregator downloads them likewise and serves them in its own /openapi/v3 and /openapi/v2).
  asio::awaitable<void> fetch_openapi(const ApiService& apiservice, const proxy::Backend& backend, Probed& probed);
  void publish();

  Config config_;
  std::shared_ptr<std::atomic<bool>> registered_ = std::make_shared<std::atomic<bool>>(false);
  std::shared_ptr<asio::ssl::context> probe_tls_;  // kube's discovery check does not verify the backend
  // Touched on the strand only.
  std::map<std::string, boost::json::object> stored_;
  std::map<std::string, Probed> probed_;
  bool listed_ = false;
  std::unique_ptr<base::WakeSignal> wake_;  // the work loop's: an APIService event, the local APIs changing
  std::optional<asio::strand<asio::any_io_executor>> strand_;
  std::atomic<bool> started_{false};
  mutable std::mutex mutex_;
  std::shared_ptr<const RemoteApis> remote_ = std::make_shared<RemoteApis>();
  std::atomic<bool> has_remote_{false};
  std::shared_ptr<const kapi::schema::DynamicOpenApi> openapi_ = std::make_shared<kapi::schema::DynamicOpenApi>();
};

}  // namespace kapi::aggregator
