#include "tests/support/linearizability/configmap_client.h"

#include <boost/json.hpp>

#include <stdexcept>

namespace kapi::test_support::linearizability {
namespace {

namespace json = boost::json;

// No connection to kapi could be made: the request was never sent.
class NotSent : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

std::optional<json::object> object_of(const std::string& body) {
  boost::system::error_code error;
  json::value value = json::parse(body, error);
  if (error || !value.is_object()) return std::nullopt;
  return std::move(value.as_object());
}

Revision revision_of(const json::object& object) {
  const std::string version = string_at(object, "metadata", "resourceVersion");
  if (version.empty()) throw std::runtime_error("no metadata.resourceVersion");
  return std::stoll(version);
}

Versioned versioned_of(const json::object& object) { return {string_at(object, "data", "v"), revision_of(object)}; }

// A 409's metav1.Status reason: AlreadyExists for a create, Conflict for a failed precondition.
std::string reason_of(const HttpResponse& response) {
  const std::optional<json::object> status = object_of(response.body);
  return status ? string_at(*status, "reason") : std::string();
}

// Answers that say nothing of whether a write took effect: kapi gave up (504), its storage failed (500, 503), or
// priority and fairness turned the request away (429, which a client cannot tell from the others).
bool says_nothing(int status) { return status >= 500 || status == 429; }

}  // namespace

std::string string_at(const json::object& object, std::string_view first, std::string_view second) {
  const json::value* field = object.if_contains(first);
  if (field && !second.empty()) field = field->is_object() ? field->as_object().if_contains(second) : nullptr;
  return field && field->is_string() ? std::string(field->as_string()) : std::string();
}

void KapiEndpoint::up(int port, TlsClientOptions tls) {
  {
    std::lock_guard lock(mutex_);
    address_ = Address{port, std::move(tls), ++generation_};
  }
  changed_.notify_all();
}

void KapiEndpoint::down() {
  std::lock_guard lock(mutex_);
  address_.reset();
}

std::optional<KapiEndpoint::Address> KapiEndpoint::wait_until_up(Clock::time_point deadline) const {
  std::unique_lock lock(mutex_);
  changed_.wait_until(lock, deadline, [&] { return address_.has_value(); });
  return address_;
}

ConfigMapClient::ConfigMapClient(const KapiEndpoint& endpoint, ClientSettings settings, int client,
                                 HistoryRecorder& history)
    : endpoint_(endpoint), settings_(std::move(settings)), client_(client), history_(history) {}

std::string ConfigMapClient::object_path(const std::string& key) const {
  return "/api/v1/namespaces/" + settings_.namespace_ + "/configmaps/" + key +
         "?timeout=" + std::to_string(settings_.request_timeout.count()) + "ms";
}

std::string ConfigMapClient::body_of(const std::string& key, const std::string& value,
                                     std::optional<Revision> version) const {
  json::object metadata{{"name", key},
                        {"namespace", settings_.namespace_},
                        {"labels", json::object{{"linearizability", settings_.label}}}};
  if (version) metadata["resourceVersion"] = std::to_string(*version);
  return json::serialize(json::object{{"apiVersion", "v1"},
                                      {"kind", "ConfigMap"},
                                      {"metadata", std::move(metadata)},
                                      {"data", json::object{{"v", value}}}});
}

void ConfigMapClient::connect() {
  // The connection is made before the call is timed: a request that waits for kapi to come back has not begun.
  const std::optional<KapiEndpoint::Address> address = endpoint_.wait_until_up(Clock::now() + settings_.wait_for_kapi);
  if (!address) throw NotSent("kapi did not come back");
  if (connection_ && (connection_generation_ != address->generation || connection_->closed_by_peer())) {
    connection_.reset();
  }
  if (!connection_) {
    try {
      connection_.emplace(address->port, address->tls, settings_.client_timeout);
      connection_generation_ = address->generation;
    } catch (const std::exception& error) {
      throw NotSent(error.what());
    }
  }
}

template <typename Settle>
std::optional<Operation> ConfigMapClient::run(Operation operation, const Request& request, Settle settle) {
  operation.client = client_;
  try {
    connect();
  } catch (const NotSent&) {
    return std::nullopt;
  }
  operation.call = Clock::now();
  std::optional<HttpResponse> response;
  try {
    const std::vector<std::pair<std::string, std::string>> headers =
        request.body.empty() ? std::vector<std::pair<std::string, std::string>>{}
                             : std::vector<std::pair<std::string, std::string>>{{"Content-Type", "application/json"}};
    response = connection_->request(request.method, request.target, headers, request.body, settings_.client_timeout);
  } catch (const std::exception&) {
    connection_.reset();  // cut or timed out: whatever kapi did with the request, nobody was told
  }
  operation.returned = Clock::now();
  operation.outcome = Outcome::Unknown;
  if (response) {
    if (response->closes_connection()) connection_.reset();
    try {
      if (!settle(*response, operation) && !says_nothing(response->status)) {
        unexpected_.push_back(describe(operation, operation.call) + ": HTTP " + std::to_string(response->status) + " " +
                              response->body);
      }
    } catch (const std::exception& error) {
      operation.outcome = Outcome::Unknown;
      unexpected_.push_back(std::string(name_of(operation.verb)) + " answered an unreadable " +
                            std::to_string(response->status) + " (" + error.what() + "): " + response->body);
    }
  }
  history_.add(operation);
  return operation;
}

// Each settle function reads an answer into the operation; false when the status is none the verb expects.
std::optional<Operation> ConfigMapClient::get(const std::string& key) {
  Operation operation;
  operation.verb = Verb::Get;
  operation.key = key;
  return run(std::move(operation), {"GET", object_path(key), ""}, [](const HttpResponse& response, Operation& read) {
    if (response.status == 404) read.outcome = Outcome::NotFound;
    if (response.status != 200) return response.status == 404;
    read.found = versioned_of(object_of(response.body).value());
    read.outcome = Outcome::Ok;
    return true;
  });
}

std::optional<Operation> ConfigMapClient::create(const std::string& key, const std::string& value) {
  Operation operation;
  operation.verb = Verb::Create;
  operation.key = key;
  operation.value = value;
  const std::string collection = "/api/v1/namespaces/" + settings_.namespace_ +
                                 "/configmaps?timeout=" + std::to_string(settings_.request_timeout.count()) + "ms";
  return run(std::move(operation), {"POST", collection, body_of(key, value, std::nullopt)},
             [](const HttpResponse& response, Operation& write) {
               if (response.status == 409 && reason_of(response) == "AlreadyExists") {
                 write.outcome = Outcome::AlreadyExists;
                 return true;
               }
               if (response.status != 201) return false;
               write.revision = revision_of(object_of(response.body).value());
               write.outcome = Outcome::Ok;
               return true;
             });
}

std::optional<Operation> ConfigMapClient::update(const std::string& key, const std::string& value,
                                                 Revision precondition) {
  Operation operation;
  operation.verb = Verb::Update;
  operation.key = key;
  operation.value = value;
  operation.precondition = precondition;
  return run(std::move(operation), {"PUT", object_path(key), body_of(key, value, precondition)},
             [](const HttpResponse& response, Operation& write) {
               if (response.status == 404) write.outcome = Outcome::NotFound;
               if (response.status == 409 && reason_of(response) == "Conflict") write.outcome = Outcome::Conflict;
               if (write.outcome != Outcome::Unknown) return true;
               if (response.status != 200) return false;
               write.revision = revision_of(object_of(response.body).value());
               write.outcome = Outcome::Ok;
               return true;
             });
}

std::optional<Operation> ConfigMapClient::remove(const std::string& key, std::optional<Revision> precondition) {
  Operation operation;
  operation.verb = Verb::Delete;
  operation.key = key;
  operation.precondition = precondition;
  std::string body;
  if (precondition) {
    body = json::serialize(json::object{{"apiVersion", "v1"},
                                        {"kind", "DeleteOptions"},
                                        {"preconditions", {{"resourceVersion", std::to_string(*precondition)}}}});
  }
  return run(std::move(operation), {"DELETE", object_path(key), body},
             [](const HttpResponse& response, Operation& write) {
               if (response.status == 200) write.outcome = Outcome::Ok;
               if (response.status == 404) write.outcome = Outcome::NotFound;
               if (response.status == 409 && reason_of(response) == "Conflict") write.outcome = Outcome::Conflict;
               return write.outcome != Outcome::Unknown;
             });
}

std::optional<Operation> ConfigMapClient::list() {
  Operation operation;
  operation.verb = Verb::List;
  const std::string target = "/api/v1/namespaces/" + settings_.namespace_ +
                             "/configmaps?labelSelector=linearizability%3D" + settings_.label +
                             "&timeout=" + std::to_string(settings_.request_timeout.count()) + "ms";
  return run(std::move(operation), {"GET", target, ""}, [](const HttpResponse& response, Operation& read) {
    if (response.status != 200) return false;
    const json::object list = object_of(response.body).value();
    read.revision = revision_of(list);
    for (const json::value& item : list.at("items").as_array()) {
      read.items.emplace(string_at(item.as_object(), "metadata", "name"), versioned_of(item.as_object()));
    }
    read.outcome = Outcome::Ok;
    return true;
  });
}

}  // namespace kapi::test_support::linearizability
