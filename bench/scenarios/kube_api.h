#pragma once
// What the Kubernetes scenarios share: ConfigMap bodies of a chosen size, the bench namespace, filling it with
// objects, and one keep-alive connection per load slot.
#include "bench/client/http_client.h"
#include "bench/load/driver.h"

#include <asio/any_io_executor.hpp>
#include <asio/awaitable.hpp>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace kapi::bench {

// A ConfigMap named `name` whose JSON is about `object_bytes` long: a data key "payload" is padded to fit. An
// `extra_key`/`extra_value` pair, if given, is added to data (the watch scenario's sequence and send time).
std::string configmap_json(std::string_view name, std::size_t object_bytes, std::string_view extra_key = {},
                           std::string_view extra_value = {});

std::string configmaps_path(std::string_view namespace_name);

// `body_template` with every `{name}` replaced by `name` (create's --body-template: any kind of object, e.g. a
// custom resource).
std::string fill_body_template(std::string_view body_template, std::string_view name);

// Creates the namespace; one that already exists is fine. Throws std::runtime_error on any other answer.
asio::awaitable<void> ensure_namespace(HttpTransport& connection, std::string_view namespace_name);
// Creates the namespace's `default` ServiceAccount, which pods need (ServiceAccount admission), when no service
// account controller has yet: kapi on etcd runs none by default. One that already exists is fine.
asio::awaitable<void> ensure_default_service_account(HttpTransport& connection, std::string_view namespace_name);

// Creates obj-0 … obj-<count-1> in the namespace with `concurrency` connections; existing ones are kept.
asio::awaitable<LoadResult> fill_namespace(asio::any_io_executor executor, ServerAddress server,
                                           std::string namespace_name, std::size_t count, std::size_t object_bytes,
                                           std::size_t concurrency);

// The metadata.resourceVersion of an object's JSON (found textually: the first resourceVersion in kube's field
// order is the object's own); empty when there is none.
std::string resource_version_of(std::string_view object_json);

// One HTTP/1.1 connection per slot of the load driver, or one HTTP/2 connection per 1000 slots, opened on first use.
class ConnectionPool {
 public:
  ConnectionPool(asio::any_io_executor executor, ServerAddress server, std::size_t slots);
  HttpTransport& at(std::size_t slot);
  // Sends on the slot's connection and turns the answer into the driver's Outcome; the response body is kept in
  // `body` when one is given.
  asio::awaitable<Outcome> send(std::size_t slot, const HttpRequest& request, std::string* body = nullptr);

 private:
  asio::any_io_executor executor_;
  ServerAddress server_;
  std::vector<std::unique_ptr<HttpTransport>> connections_;
};

}  // namespace kapi::bench
