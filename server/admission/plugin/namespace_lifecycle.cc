// NamespaceLifecycle (k8s.io/apiserver/pkg/admission/plugin/namespace/lifecycle/admission.go): no object is made
// or changed in a namespace that does not exist, nothing is created in one being terminated, and the namespaces
// the cluster needs (default, kube-system, kube-public) are never deleted.
#include "server/admission/errors.h"
#include "server/admission/plugin.h"
#include "server/registry/store.h"

#include <simdjson.h>

namespace kapi::admission {
namespace {

bool is_namespace(const Attributes& attributes) {
  return attributes.kind.group.empty() && attributes.kind.kind == "Namespace";
}

// Access reviews answer questions about a namespace: saying whether it exists would leak it.
bool is_access_review(const Attributes& attributes) {
  return attributes.resource.group == "authorization.k8s.io" &&
         attributes.resource.resource == "localsubjectaccessreviews";
}

// Whether a namespace's status.phase is Terminating. Every create in a namespace asks, and nearly every namespace
// is Active: one whose text never says "Terminating" is not parsed (a parser's buffers cost more than the scan).
bool terminating(std::string_view json) {
  if (json.find("Terminating") == std::string_view::npos) return false;
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  std::string_view phase;
  if (parser.parse(json.data(), json.size()).get(root) != simdjson::SUCCESS) return false;
  if (root["status"]["phase"].get(phase) != simdjson::SUCCESS) return false;
  return phase == "Terminating";
}

class NamespaceLifecycle final : public Plugin {
 public:
  explicit NamespaceLifecycle(registry::Store* namespaces) : namespaces_(namespaces) {}

  bool handles(const Attributes& attributes) const override {
    if (attributes.operation == Operation::Connect) return false;
    if (is_namespace(attributes)) return attributes.operation == Operation::Delete;
    return !attributes.namespace_.empty() && attributes.operation != Operation::Delete &&
           !is_access_review(attributes);
  }
  bool mutates() const override { return true; }

  asio::awaitable<void> admit(Attributes& attributes) override {
    if (is_namespace(attributes)) {
      const std::string& name = attributes.name;
      if (name == "default" || name == "kube-system" || name == "kube-public")
        throw apierrors::ApiError(apierrors::forbidden(attributes.resource.group, attributes.resource.resource,
                                                       name, "this namespace may not be deleted"));
      co_return;
    }
    std::string object;
    try {
      registry::ReadObject cached = co_await namespaces_->get("", attributes.namespace_, "0");
      object = std::move(cached.json);
    } catch (const apierrors::ApiError& error) {
      if (error.status().code != 404) throw;
    }
    // The watch cache may not have seen a namespace created a moment ago: a miss is confirmed by a live read,
    // whose 404 (`namespaces "x" not found`) is the answer when it is missing there too.
    if (object.empty()) {
      registry::ReadObject live = co_await namespaces_->get("", attributes.namespace_, "");
      object = std::move(live.json);
    }
    if (attributes.operation != Operation::Create || !terminating(object)) co_return;
    apierrors::ApiError refused = forbidden(attributes, "unable to create new content in namespace " +
                                                            attributes.namespace_ + " because it is being terminated");
    apierrors::Status status = refused.status();
    status.details->causes.push_back({"NamespaceTerminating", "namespace " + attributes.namespace_ +
                                      " is being terminated", "metadata.namespace"});
    throw apierrors::ApiError(std::move(status));
  }

 private:
  registry::Store* namespaces_;
};

}  // namespace

std::unique_ptr<Plugin> make_namespace_lifecycle(const PluginContext& context) {
  return std::make_unique<NamespaceLifecycle>(context.stores("", "namespaces"));
}

}  // namespace kapi::admission
