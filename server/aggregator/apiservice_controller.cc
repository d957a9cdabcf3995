#include "server/aggregator/apiservice_controller.h"

#include "base/log.h"
#include "server/aggregator/autoregistration.h"
#include "server/proxy/backend_client.h"
#include "server/aggregator/service_resolver.h"
#include "server/apierrors/errors.h"
#include "server/registry/object_meta.h"
#include "server/registry/reflector.h"

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/post.hpp>
#include <asio/redirect_error.hpp>
#include <asio/strand.hpp>
#include <asio/use_awaitable.hpp>
#include <boost/json.hpp>

namespace kapi::aggregator {
namespace {

namespace json = boost::json;
using namespace std::chrono_literals;

std::string service_name(const ApiService& apiservice) {
  return "service/" + apiservice.service->name + " in \"" + apiservice.service->namespace_ + "\"";
}

}  // namespace

ApiServiceController::ApiServiceController(Config config) : config_(std::move(config)) {
  try {
    probe_tls_ = proxy::make_backend_tls("", true, config_.proxy_client.cert_file, config_.proxy_client.key_file);
  } catch (const std::exception& error) {
    config_.logger.warning(std::string("aggregator: cannot load the proxy client certificate: ") + error.what());
    probe_tls_ = proxy::make_backend_tls("", true, {}, {});
  }
}

void ApiServiceController::start(asio::any_io_executor executor, std::function<bool()> local_apis_synced) {
  strand_.emplace(asio::make_strand(executor));
  wake_ = std::make_unique<base::WakeSignal>(*strand_);
  asio::co_spawn(*strand_, follow(), asio::detached);
  asio::co_spawn(*strand_, work(std::move(local_apis_synced)), asio::detached);
  started_.store(true, std::memory_order_release);
}

void ApiServiceController::local_apis_changed() {
  if (!started_.load(std::memory_order_acquire)) return;  // the work loop's first pass looks anyway
  asio::post(*strand_, [this] { wake_->notify(); });
}

std::shared_ptr<const RemoteApis> ApiServiceController::remote() const {
  std::lock_guard lock(mutex_);
  return remote_;
}

std::shared_ptr<const kapi::schema::DynamicOpenApi> ApiServiceController::openapi() const {
  std::lock_guard lock(mutex_);
  return openapi_;
}

asio::awaitable<void> ApiServiceController::follow() {
  registry::ReflectorHandlers handlers{
      .replace = [this](std::vector<json::object> objects, storage::Revision) -> asio::awaitable<void> {
        stored_.clear();
        for (auto& object : objects) {
          std::string name(registry::meta_string(object, "name"));
          stored_[name] = std::move(object);
        }
        listed_ = true;
        publish();
        wake_->notify();
        co_return;
      },
      .apply = [this](const storage::WatchEvent& event, json::object object) -> asio::awaitable<void> {
        std::string name(registry::meta_string(object, "name"));
        if (event.type == storage::WatchEventType::Deleted) stored_.erase(name);
        else stored_[name] = std::move(object);
        publish();
        wake_->notify();
        co_return;
      }};
  registry::ReflectorOptions options{.following = "apiservices"};
  auto following = registry::reflect(config_.apiservices, std::move(handlers), std::move(options), config_.stopping,
                                     config_.logger);
  co_await std::move(following);
}

asio::awaitable<void> ApiServiceController::work(std::function<bool()> local_apis_synced) {
  while (!config_.stopping->load()) {
    if (listed_) {
      try {
        if (local_apis_synced()) {
          co_await register_local_apiservices();
          registered_->store(true);
        }
        co_await check_remote_apiservices();
      } catch (const apierrors::ApiError& error) {
        // A conflict or an APIService deleted meanwhile: the next event brings the current state.
        if (error.status().code != 409 && error.status().code != 404 && !config_.stopping->load())
          config_.logger.warning("apiservices: " + error.status().message);
      } catch (const std::exception& error) {
        if (!config_.stopping->load()) config_.logger.warning(std::string("apiservices: ") + error.what());
      }
    }
    // Woken by an APIService event or the local APIs changing; a tick a second besides, for the unavailable
    // backends to be retried and the available ones probed.
    auto waiting = wake_->wait_until(std::chrono::steady_clock::now() + std::chrono::seconds(1));
    co_await std::move(waiting);
  }
}

asio::awaitable<void> ApiServiceController::register_local_apiservices() {
  AutoRegistrationPlan plan = plan_autoregistration(config_.local_discovery.local_group_versions(), stored_);
  for (auto& object : plan.create) {
    try {
      registry::WriteOptions options;
      auto creating = config_.apiservices.create("", std::move(object), options);
      co_await std::move(creating);
    } catch (const apierrors::ApiError& error) {
      if (error.status().code != 409) throw;  // created meanwhile (another kapi on the same etcd)
    }
  }
  for (auto& object : plan.update) {
    const std::string name(registry::meta_string(object, "name"));
    registry::UpdateFunction update = [wanted = std::move(object)](const json::object* current) -> json::object {
      if (!current) throw apierrors::ApiError(apierrors::not_found("apiregistration.k8s.io", "apiservices", ""));
      json::object next = *current;
      next["spec"] = wanted.at("spec");
      return next;
    };
    registry::WriteOptions options;
    auto updating = config_.apiservices.update("", name, std::move(update), options);
    co_await std::move(updating);
  }
  for (const auto& name : plan.remove) {
    try {
      registry::DeleteOptions options;
      auto removing = config_.apiservices.remove("", name, options);
      co_await std::move(removing);
    } catch (const apierrors::ApiError& error) {
      if (error.status().code != 404) throw;
    }
  }
}

asio::awaitable<void> ApiServiceController::check_remote_apiservices() {
  const auto now = std::chrono::steady_clock::now();
  bool changed = false;
  for (auto it = probed_.begin(); it != probed_.end();) {
    auto found = stored_.find(it->first);
    if (found == stored_.end() || !parse_apiservice(found->second).service) {
      it = probed_.erase(it);
      changed = true;
    } else {
      ++it;
    }
  }
  // Names first: the writes below change stored_ as their events arrive.
  std::vector<std::string> names;
  for (const auto& [name, object] : stored_) names.push_back(name);
  for (const auto& name : names) {
    auto found = stored_.find(name);
    if (found == stored_.end()) continue;
    const ApiService apiservice = parse_apiservice(found->second);
    if (!apiservice.service) continue;  // local: Available from its creation on
    const json::value* spec_value = found->second.if_contains("spec");
    const std::string spec = spec_value ? json::serialize(*spec_value) : std::string();
    Probed& probed = probed_[name];
    const auto interval = probed.available ? config_.probe_interval : std::chrono::milliseconds(1000);
    if (probed.spec == spec && now - probed.at < interval && apiservice.available == probed.available) continue;
    const std::string tls_key = apiservice.ca_bundle_pem + (apiservice.insecure_skip_tls_verify ? "\n#insecure" : "");
    if (!probed.tls || probed.tls_key != tls_key) {
      try {
        probed.tls = proxy::make_backend_tls(apiservice.ca_bundle_pem, apiservice.insecure_skip_tls_verify,
                                      config_.proxy_client.cert_file, config_.proxy_client.key_file);
      } catch (const std::exception& error) {
        config_.logger.warning("apiservices: " + name + ": " + error.what());
        probed.tls = nullptr;
      }
      probed.tls_key = tls_key;
    }
    if (probed.spec != spec) probed.openapi_at = {};  // another backend, perhaps
    Check result = co_await check(apiservice, probed);
    probed.spec = spec;
    probed.at = std::chrono::steady_clock::now();
    probed.available = result.status == "True";
    if (probed.available) probed.resources = std::move(result.resources);
    changed = true;
    auto writing = write_status(name, result);
    co_await std::move(writing);
  }
  if (changed) publish();
}

asio::awaitable<ApiServiceController::Check> ApiServiceController::check(const ApiService& apiservice,
                                                                         Probed& probed) {
  if (!config_.services || !config_.endpoints)
    co_return Check{"False", "ServiceNotFound", service_name(apiservice) + " is not present", {}};
  auto resolving = resolve_endpoint(*config_.services, *config_.endpoints, *apiservice.service);
  Resolution resolution = co_await std::move(resolving);
  if (const auto* error = std::get_if<ResolveError>(&resolution)) {
    switch (error->kind) {
      case ResolveError::Kind::ServiceNotFound:
        co_return Check{"False", "ServiceNotFound", service_name(apiservice) + " is not present", {}};
      case ResolveError::Kind::ServicePortError:
        co_return Check{"False", "ServicePortError",
                        service_name(apiservice) + " is not listening on port " +
                            std::to_string(apiservice.service->port),
                        {}};
      case ResolveError::Kind::EndpointsNotFound:
        co_return Check{"False", "EndpointsNotFound",
                        "cannot find endpoints for " + service_name(apiservice), {}};
      case ResolveError::Kind::MissingEndpoints:
        co_return Check{"False", "MissingEndpoints",
                        "endpoints for " + service_name(apiservice) + " have no addresses with port name \"" +
                            error->port_name + "\"",
                        {}};
      case ResolveError::Kind::UnsupportedType:
        co_return Check{"False", "ServiceAccessError",
                        service_name(apiservice) + " cannot be checked due to: " + error->message, {}};
    }
  }
  const auto& endpoint = std::get<ResolvedEndpoint>(resolution);
  const std::string path = "/apis/" + apiservice.group + "/" + apiservice.version;
  const bool ipv6 = endpoint.host.find(':') != std::string::npos;
  const std::string url = "https://" + (ipv6 ? "[" + endpoint.host + "]" : endpoint.host) + ":" +
                          std::to_string(endpoint.port) + path;
  proxy::Backend backend{endpoint.host, endpoint.port,
                  service_dns_name(*apiservice.service), probe_tls_, false};
  http::Headers headers;
  // The system:masters identity: the backend's authorizer must let the check through.
  headers.set("X-Remote-User", "system:kube-aggregator");
  headers.add("X-Remote-Group", "system:masters");
  headers.set("Accept", "application/json");
  std::string failure;
  proxy::BackendResponse response;
  try {
    auto fetching = proxy::fetch_from_backend(backend, "GET", path, std::move(headers), std::chrono::milliseconds(5000),
                                       std::size_t{16} << 20);
    response = co_await std::move(fetching);
  } catch (const std::exception& error) {
    failure = error.what();
  }
  if (failure.empty() && (response.status < 200 || response.status >= 300))
    failure = "bad status from " + url + ": " + std::to_string(response.status);
  if (!failure.empty())
    co_return Check{"False", "FailedDiscoveryCheck", "failing or missing response from " + url + ": " + failure, {}};
  // Fetched again every minute, and when the backend comes back (it may have been replaced meanwhile).
  if (!probed.available || probed.openapi_at == std::chrono::steady_clock::time_point{} ||
      std::chrono::steady_clock::now() - probed.openapi_at > std::chrono::minutes(1)) {
    auto fetching = fetch_openapi(apiservice, backend, probed);
    co_await std::move(fetching);
  }
  Check passed{"True", "Passed", "all checks passed", {}};
  // The discovery document the check fetched is what merged discovery lists for this group version.
  if (auto list = registry::parse_json_object(response.body))
    if (const json::value* resources = list->if_contains("resources"); resources && resources->is_array())
      passed.resources = resources->as_array();
  co_return passed;
}

asio::awaitable<void> ApiServiceController::fetch_openapi(const ApiService& apiservice, const proxy::Backend& backend,
                                                         Probed& probed) {
  probed.openapi_at = std::chrono::steady_clock::now();
  const std::string wanted = "apis/" + apiservice.group + "/" + apiservice.version;
  http::Headers headers;
  headers.set("X-Remote-User", "system:kube-aggregator");
  headers.add("X-Remote-Group", "system:masters");
  headers.set("Accept", "application/json");
  try {
    http::Headers v2_headers = headers;
    auto fetching_v2 = proxy::fetch_from_backend(backend, "GET", "/openapi/v2", std::move(v2_headers),
                                          std::chrono::milliseconds(5000), std::size_t{32} << 20);
    proxy::BackendResponse v2 = co_await std::move(fetching_v2);
    if (v2.status == 200) probed.openapi_v2 = registry::parse_json_object(v2.body);
    else if (v2.status == 404) probed.openapi_v2.reset();
  } catch (const std::exception& error) {
    config_.logger.info("apiservices: cannot fetch the OpenAPI v2 document of " + apiservice.name + ": " +
                        error.what());
  }
  try {
    http::Headers index_headers = headers;
    auto fetching_index = proxy::fetch_from_backend(backend, "GET", "/openapi/v3", std::move(index_headers),
                                             std::chrono::milliseconds(5000), std::size_t{1} << 20);
    proxy::BackendResponse index = co_await std::move(fetching_index);
    auto paths = index.status == 200 ? registry::parse_json_object(index.body) : std::nullopt;
    const json::value* entry = paths && paths->if_contains("paths") && paths->at("paths").is_object()
                                   ? paths->at("paths").as_object().if_contains(wanted)
                                   : nullptr;
    if (!entry || !entry->is_object() || !entry->as_object().if_contains("serverRelativeURL")) {
      probed.openapi_v3.reset();  // the backend publishes none: nothing to merge
      co_return;
    }
    std::string url(registry::string_field(entry->as_object(), "serverRelativeURL"));
    auto fetching = proxy::fetch_from_backend(backend, "GET", std::move(url), std::move(headers),
                                       std::chrono::milliseconds(5000), std::size_t{16} << 20);
    proxy::BackendResponse document = co_await std::move(fetching);
    auto parsed = document.status == 200 ? registry::parse_json_object(document.body) : std::nullopt;
    if (!parsed) co_return;  // keep what was fetched before
    probed.openapi_v3 = kapi::schema::openapi_document(json::value(std::move(*parsed)));
  } catch (const std::exception& error) {
    config_.logger.info("apiservices: cannot fetch the OpenAPI v3 document of " + apiservice.name + ": " +
                        error.what());
  }
}

asio::awaitable<void> ApiServiceController::write_status(const std::string& name, const Check& check) {
  auto found = stored_.find(name);
  if (found == stored_.end()) co_return;
  json::object probe = found->second;
  config_.metrics.unavailable_apiservice.set({name}, check.status == "True" ? 0 : 1);
  const bool was_available = parse_apiservice(probe).available;
  if (!set_available_condition(probe, check.status, check.reason, check.message)) co_return;
  if (check.status != "True") {
    config_.logger.info("apiservices: " + name + " is not available: " + check.reason + ": " + check.message);
    if (was_available) config_.metrics.unavailable_apiservice_total.inc({name, check.reason});
  }
  registry::UpdateFunction update = [&check](const json::object* current) -> json::object {
    if (!current) throw apierrors::ApiError(apierrors::not_found("apiregistration.k8s.io", "apiservices", ""));
    json::object next = *current;
    registry::metadata_of(next).erase("resourceVersion");
    set_available_condition(next, check.status, check.reason, check.message);
    return next;
  };
  registry::WriteOptions options;
  options.subresource = "status";
  auto updating = config_.apiservices.update("", name, std::move(update), options);
  co_await std::move(updating);
}

void ApiServiceController::publish() {
  auto remote = std::make_shared<RemoteApis>();
  auto openapi = std::make_shared<kapi::schema::DynamicOpenApi>();
  for (const auto& [name, object] : stored_) {
    ApiService apiservice = parse_apiservice(object);
    if (!apiservice.service) {
      config_.metrics.unavailable_apiservice.set({name}, apiservice.available ? 0 : 1);
      continue;
    }
    RemoteApi entry;
    if (auto found = probed_.find(name); found != probed_.end()) {
      entry.tls = found->second.tls;
      entry.resources = found->second.resources;
      if (found->second.openapi_v3 && apiservice.available)
        openapi->v3[kapi::schema::group_version_path(apiservice.group, apiservice.version)] = *found->second.openapi_v3;
      if (found->second.openapi_v2 && apiservice.available) openapi->v2.push_back(*found->second.openapi_v2);
    }
    std::string key = apiservice.group + "/" + apiservice.version;
    entry.apiservice = std::move(apiservice);
    (*remote)[key] = std::move(entry);
  }
  std::lock_guard lock(mutex_);
  has_remote_.store(!remote->empty(), std::memory_order_release);
  remote_ = std::move(remote);
  // A new snapshot only when a document changed: the OpenAPI handler remakes its merged v2 document per snapshot.
  auto same = [](const kapi::schema::DynamicOpenApi& a, const kapi::schema::DynamicOpenApi& b) {
    if (a.v3.size() != b.v3.size()) return false;
    for (auto x = a.v3.begin(), y = b.v3.begin(); x != a.v3.end(); ++x, ++y)
      if (x->first != y->first || x->second.hash != y->second.hash) return false;
    return a.v2 == b.v2;
  };
  if (!same(*openapi, *openapi_)) openapi_ = std::move(openapi);
}

}  // namespace kapi::aggregator
