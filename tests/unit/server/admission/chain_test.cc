// The admission chain: plugins run in order, each step only its kind of plugin, a plugin that does not handle
// the request is skipped, the first refusal ends the step; and the metrics kube names.
#include "server/admission/chain.h"
#include "server/admission/errors.h"
#include "server/metrics/registry.h"

#include <gtest/gtest.h>

#include <asio/co_spawn.hpp>
#include <asio/io_context.hpp>
#include <asio/use_future.hpp>

namespace kapi::admission::chain_test {
namespace {

namespace json = boost::json;

class Recording final : public Plugin {
 public:
  Recording(std::string name, std::vector<std::string>& log, bool mutating, bool validating, bool refuse = false,
            std::string only_resource = {})
      : name_(std::move(name)), log_(log), mutating_(mutating), validating_(validating), refuse_(refuse),
        only_resource_(std::move(only_resource)) {}
  bool handles(const Attributes& attributes) const override {
    return only_resource_.empty() || attributes.resource.resource == only_resource_;
  }
  bool mutates() const override { return mutating_; }
  bool validates() const override { return validating_; }
  asio::awaitable<void> admit(Attributes& attributes) override {
    log_.push_back("admit " + name_);
    (*attributes.object)["touched-by-" + name_] = true;
    if (refuse_) throw forbidden(attributes, name_ + " says no");
    co_return;
  }
  asio::awaitable<void> validate(const Attributes& attributes) override {
    log_.push_back("validate " + name_);
    if (refuse_) throw forbidden(attributes, name_ + " says no");
    co_return;
  }

 private:
  std::string name_;
  std::vector<std::string>& log_;
  bool mutating_, validating_, refuse_;
  std::string only_resource_;
};

template <typename Awaitable>
void run(Awaitable awaitable) {
  asio::io_context io;
  auto done = asio::co_spawn(io, std::move(awaitable), asio::use_future);
  io.run();
  done.get();
}

Attributes pod_create(json::object& object) {
  Attributes attributes;
  attributes.operation = Operation::Create;
  attributes.kind = {"", "v1", "Pod"};
  attributes.resource = {"", "v1", "pods"};
  attributes.namespace_ = "default";
  attributes.object = &object;
  return attributes;
}

TEST(AdmissionChainTest, RunsEachStepsPluginsInOrderSkippingThoseThatDoNotHandleTheRequest) {
  std::vector<std::string> log;
  std::vector<Chain::NamedPlugin> plugins;
  plugins.push_back({"A", std::make_unique<Recording>("A", log, true, false)});
  plugins.push_back({"B", std::make_unique<Recording>("B", log, true, true)});
  plugins.push_back({"C", std::make_unique<Recording>("C", log, true, true, false, "services")});
  plugins.push_back({"D", std::make_unique<Recording>("D", log, false, true)});
  Chain chain(std::move(plugins));
  json::object pod{{"metadata", json::object{{"name", "p"}}}};
  Attributes attributes = pod_create(pod);
  run(chain.admit(attributes));
  run(chain.validate(attributes));
  EXPECT_EQ(log, (std::vector<std::string>{"admit A", "admit B", "validate B", "validate D"}));
  EXPECT_TRUE(pod.contains("touched-by-A"));
  EXPECT_TRUE(pod.contains("touched-by-B"));
  EXPECT_FALSE(pod.contains("touched-by-C"));
}

TEST(AdmissionChainTest, TheFirstRefusalEndsTheStepWithItsForbiddenStatusAndIsCounted) {
  std::vector<std::string> log;
  metrics::Registry metrics;
  std::vector<Chain::NamedPlugin> plugins;
  plugins.push_back({"A", std::make_unique<Recording>("A", log, true, false, true)});
  plugins.push_back({"B", std::make_unique<Recording>("B", log, true, false)});
  Chain chain(std::move(plugins), &metrics);
  json::object pod{{"metadata", json::object{{"generateName", "web-"}}}};
  Attributes attributes = pod_create(pod);
  try {
    run(chain.admit(attributes));
    FAIL() << "expected a refusal";
  } catch (const apierrors::ApiError& error) {
    EXPECT_EQ(error.status().code, 403);
    EXPECT_EQ(error.status().reason, "Forbidden");
    // Without a name yet, kube names the object by its generateName.
    EXPECT_EQ(error.status().message, "pods \"web-\" is forbidden: A says no");
  }
  EXPECT_EQ(log, (std::vector<std::string>{"admit A"}));
  EXPECT_EQ(metrics.admission_controller_duration.count({"A", "CREATE", "true", "admit"}), 1u);
  EXPECT_EQ(metrics.admission_step_duration.count({"CREATE", "true", "admit"}), 1u);
  EXPECT_EQ(metrics.admission_step_duration.count({"CREATE", "false", "admit"}), 0u);
}

// A plugin that asks for the second pass the first time it runs (as a webhook whose patch changed the object).
class AsksForReinvocation final : public Plugin {
 public:
  explicit AsksForReinvocation(std::vector<std::string>& log) : log_(log) {}
  bool handles(const Attributes&) const override { return true; }
  bool mutates() const override { return true; }
  asio::awaitable<void> admit(Attributes& attributes) override {
    log_.push_back(attributes.reinvocation.is_reinvoke ? "admit again R" : "admit R");
    if (!attributes.reinvocation.is_reinvoke) attributes.reinvocation.should_reinvoke = true;
    co_return;
  }

 private:
  std::vector<std::string>& log_;
};

TEST(AdmissionChainTest, APluginThatAsksForItRunsTheWholeMutatingStepOnceMoreAsOneStep) {
  std::vector<std::string> log;
  metrics::Registry metrics;
  std::vector<Chain::NamedPlugin> plugins;
  plugins.push_back({"A", std::make_unique<Recording>("A", log, true, true)});
  plugins.push_back({"R", std::make_unique<AsksForReinvocation>(log)});
  plugins.push_back({"B", std::make_unique<Recording>("B", log, true, false)});
  Chain chain(std::move(plugins), &metrics);
  json::object pod{{"metadata", json::object{{"name", "p"}}}};
  Attributes attributes = pod_create(pod);
  run(chain.admit(attributes));
  // kube's reinvoker: every mutating plugin, in-tree ones included, once more; never a third time.
  EXPECT_EQ(log, (std::vector<std::string>{"admit A", "admit R", "admit B", "admit A", "admit again R", "admit B"}));
  EXPECT_EQ(metrics.admission_controller_duration.count({"A", "CREATE", "false", "admit"}), 2u);
  EXPECT_EQ(metrics.admission_step_duration.count({"CREATE", "false", "admit"}), 1u);
  // The validating step is never reinvoked, and a new admission of the object starts from a first pass.
  run(chain.validate(attributes));
  log.clear();
  run(chain.admit(attributes));
  EXPECT_EQ(log, (std::vector<std::string>{"admit A", "admit R", "admit B", "admit A", "admit again R", "admit B"}));
}

TEST(AdmissionChainTest, AnnotationsKeepTheirFirstValueAndWarningsAccumulate) {
  request::RequestContext context;
  Attributes attributes;
  attributes.context = &context;
  EXPECT_TRUE(attributes.add_annotation("podsecurity.kubernetes.io/enforce-policy", "restricted:latest"));
  EXPECT_TRUE(attributes.add_annotation("podsecurity.kubernetes.io/enforce-policy", "restricted:latest"));
  EXPECT_FALSE(attributes.add_annotation("podsecurity.kubernetes.io/enforce-policy", "baseline:latest"));
  EXPECT_EQ(context.audit_annotations.at("podsecurity.kubernetes.io/enforce-policy"), "restricted:latest");
  attributes.add_warning("one");
  attributes.add_warning("two");
  EXPECT_EQ(context.warnings, (std::vector<std::string>{"one", "two"}));
}

}  // namespace
}  // namespace kapi::admission::chain_test
