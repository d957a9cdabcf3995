// Fuzzes the CEL engine with expressions run as kube-apiserver runs a CRD's stored x-kubernetes-validations rule
// (apiextensions-apiserver schema/cel compilation.go and validation.go): compiled in kube's stored-expressions
// environment with `self` and `oldSelf`, its cost estimated as for a CRD, planned, and, when the estimate is within
// kube's limit, evaluated against a fixed object under kube's per-call cost limit. So every input goes through the
// parser, and those that check go through the checker, the cost estimator, the planner and the interpreter.
//
// The engine reports bad expressions as issues and failed evaluations as error values, never by throwing (see
// compile.h and program.h), so nothing here catches: an exception escaping it is a finding, as is a crash, a
// sanitizer report or an input that outlasts libFuzzer's -timeout.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include <boost/json/parse.hpp>

#include "cel/compile.h"
#include "cel/cost.h"
#include "cel/ext/kube_env.h"
#include "cel/json.h"
#include "cel/program.h"

namespace {

using kapi::cel::Type;

Type object_type(std::string name, std::map<std::string, Type, std::less<>> fields) {
  auto object = std::make_shared<kapi::cel::ObjectType>();
  object->name = std::move(name);
  object->fields = std::move(fields);
  return Type::object(std::move(object)).with_max_elements(0);  // kube's objects carry no size of their own
}

// `self`'s type as kube derives one from a small CRD schema (schema_types.cc): typed fields with size limits, a
// nested object, a list of objects, a map, an int-or-string (dyn) and a field the value below leaves out.
Type self_type() {
  Type port = object_type("Object.ports.@idx", {{"port", Type::int_type()}, {"protocol", Type::string_type()}});
  return object_type("Object", {
      {"name", Type::string_type().with_max_elements(253 * 4)},
      {"description", Type::string_type().with_max_elements(1024)},
      {"replicas", Type::int_type()},
      {"ratio", Type::double_type()},
      {"enabled", Type::bool_type()},
      {"tags", Type::list(Type::string_type().with_max_elements(64)).with_max_elements(16)},
      {"labels", Type::map(Type::string_type(), Type::string_type()).with_max_elements(32)},
      {"ports", Type::list(port).with_max_elements(8)},
      {"size", Type::dyn()},
      {"spec", object_type("Object.spec", {{"mode", Type::string_type()}, {"limit", Type::int_type()}})},
  });
}

// Values match the declared types exactly (as kube's schema-checked objects do), so that what the checker trusts
// holds at run time; `oldSelf` is dyn and carries every kind of JSON value, so its calls dispatch on run-time types.
constexpr std::string_view kSelf = R"({
  "name": "web-1", "replicas": 3, "ratio": 0.5, "enabled": true,
  "tags": ["a", "b", "b"], "labels": {"app": "web", "tier": ""},
  "ports": [{"port": 80, "protocol": "TCP"}, {"port": 443, "protocol": "TCP"}],
  "size": "10Gi", "spec": {"mode": "fast", "limit": -1}
})";
constexpr std::string_view kOldSelf = R"({
  "name": "web-0", "replicas": 9223372036854775807, "big": 18446744073709551615, "ratio": -1e308,
  "enabled": false, "nothing": null, "tags": [], "nested": [[1, "x", 2.5], {"k": [true]}],
  "labels": {"app": "web"}, "size": 7, "text": "ünïcødé ✓"
})";

struct Harness {
  std::shared_ptr<const kapi::cel::Env> env;
  kapi::cel::CostOptions cost_options;
  kapi::cel::MapActivation activation;
};

Harness make_harness() {
  Type self = self_type();
  kapi::cel::Env env = kapi::cel::ext::kube_stored_env();
  env.add_variable("self", self);
  env.add_variable("oldSelf", Type::dyn());

  Harness harness{std::make_shared<const kapi::cel::Env>(std::move(env)), kapi::cel::kube_crd_cost_options(self), {}};
  auto json = [](std::string_view text) {
    return kapi::cel::value_of(std::make_shared<const boost::json::value>(boost::json::parse(text)));
  };
  harness.activation.set("self", json(kSelf));
  harness.activation.set("oldSelf", json(kOldSelf));
  return harness;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const Harness harness = make_harness();
  std::string_view expression(reinterpret_cast<const char*>(data), size);

  kapi::cel::CheckResult checked = kapi::cel::ext::compile_kube(*harness.env, expression);
  if (!checked.ast) return 0;
  auto ast = std::make_shared<const kapi::cel::CheckedAst>(std::move(*checked.ast));
  const kapi::cel::CostEstimate estimate = kapi::cel::estimate_cost(*ast, *harness.env, harness.cost_options);
  kapi::cel::Program program = kapi::cel::Program::plan(harness.env, ast);
  // kube refuses a rule whose estimated cost is over its limit, so the server never evaluates one.
  if (estimate.max > kapi::cel::cost_limits::kStaticEstimatedCostLimit) return 0;
  program.eval(harness.activation, {.cost_limit = kapi::cel::cost_limits::kPerCallLimit});
  return 0;
}
