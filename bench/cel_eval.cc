// kapi-cel-bench: what one CEL rule costs to evaluate (issue 21), measured two ways.
//   engine: the rule compiled once in kube's stored-expressions environment with `self` and `oldSelf` as dyn,
//           evaluated by Program::eval over the spec of bench/cel/widget.json read in place (cel::value_of).
//   crd:    the same rule as the only x-kubernetes-validations rule of bench/cel/widget-schema.json's spec
//           (the other rules stripped), run by the CRD path (apiextensions/cel Validator: typed `self`, the
//           schema walk, the cost budget) over the whole object; plus the schema's 20 rules together.
// Each case is timed in batches and the fastest batch is reported (on a shared machine, other processes only ever
// add time); every result must be true, so the figures are of rules that pass, as in a create that succeeds.
//   kapi-cel-bench [--min-time=0.1] [--batches=15] [--filter=SUBSTRING] [--data=DIR]
#include "cel/ext/kube_env.h"
#include "cel/json.h"
#include "cel/program.h"
#include "server/apiextensions/cel/validator.h"
#include "server/apiextensions/schema/structural.h"

#include <boost/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

namespace json = boost::json;
using Clock = std::chrono::steady_clock;

struct Case {
  std::string name;
  std::string rule;  // written against the widget's spec as `self`
};

// Typical kube rules (the brief of issue 21 and the shapes kube's own CRDs use).
const std::vector<Case>& cases() {
  static const std::vector<Case> list = {
      {"constant (baseline)", "true"},  // what any rule pays: the call, and in the CRD path the object's walk
      {"int range", "self.replicas >= 0 && self.replicas <= 100"},
      {"regex matches", "self.name.matches('^[a-z]+$')"},
      {"all() over 8 strings", "self.items.all(i, i.size() < 64)"},
      {"has() ternary", "has(self.x) ? self.x > 0 : true"},
      {"transition, scalar", "self.mode == oldSelf.mode"},
      {"transition, whole spec", "self == oldSelf"},
      {"quantity compare", "quantity(self.q).isLessThan(quantity('1Gi'))"},
      {"exists_one over 10 objects", "self.ports.exists_one(p, p.port == 80)"},
      {"url host", "url(self.u).getHost() != ''"},
      {"isIP", "isIP(self.ip)"},
      {"string in constant list", "self.mode in ['Fast', 'Slow', 'Balanced']"},
      {"startsWith", "self.image.startsWith('registry.example.com/')"},
      {"duration compare", "duration(self.timeout) < duration('1h')"},
      {"map key in", "'app' in self.labels"},
  };
  return list;
}

struct Options {
  double min_seconds = 0.1;
  int batches = 15;
  std::string filter;
  std::string data = KAPI_BENCH_CEL_DATA;
};

json::value read_json(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  std::stringstream text;
  text << file.rdbuf();
  if (!file) throw std::runtime_error("cannot read " + path);
  return json::parse(text.str());
}

// The fastest batch's nanoseconds per call of `body` over `batches` batches, each at least `min_seconds` long (the call count
// per batch is settled once, from a calibration run).
double time_per_call(const std::function<void()>& body, const Options& options) {
  std::size_t calls = 1;
  for (;;) {
    const auto start = Clock::now();
    for (std::size_t i = 0; i < calls; ++i) body();
    const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    if (elapsed >= options.min_seconds / 4) {
      calls = std::max<std::size_t>(1, static_cast<std::size_t>(calls * options.min_seconds / elapsed));
      break;
    }
    calls *= 4;
  }
  std::vector<double> per_call;
  for (int batch = 0; batch < options.batches; ++batch) {
    const auto start = Clock::now();
    for (std::size_t i = 0; i < calls; ++i) body();
    per_call.push_back(std::chrono::duration<double, std::nano>(Clock::now() - start).count() / calls);
  }
  return *std::min_element(per_call.begin(), per_call.end());
}

// The schema with every rule removed, so that one rule can be put back alone.
void strip_rules(json::value& node) {
  if (node.is_object()) {
    node.as_object().erase("x-kubernetes-validations");
    for (auto& entry : node.as_object()) strip_rules(entry.value());
  } else if (node.is_array()) {
    for (auto& element : node.as_array()) strip_rules(element);
  }
}

std::shared_ptr<const kapi::apiextensions::cel::Validator> validator_of(const json::value& schema) {
  auto parsed = std::make_shared<const kapi::apiextensions::schema::Schema>(
      kapi::apiextensions::schema::parse_schema(schema.as_object()));
  auto validator = kapi::apiextensions::cel::Validator::for_resource(parsed);
  if (!validator) throw std::runtime_error("the schema has no rules");
  return validator;
}

struct Figures {
  double ns = 0;
  std::int64_t cost = 0;
};

Figures run_engine(const kapi::cel::Env& env, const Case& test, const json::value& spec, const Options& options) {
  auto compiled = kapi::cel::ext::compile_kube(env, test.rule);
  if (!compiled.ast) throw std::runtime_error(test.rule + ": " + compiled.message);
  auto program = kapi::cel::Program::plan(std::make_shared<const kapi::cel::Env>(env),
                                          std::make_shared<const kapi::cel::CheckedAst>(std::move(*compiled.ast)));
  auto document = std::make_shared<const json::value>(spec);
  kapi::cel::MapActivation activation;
  activation.set("self", kapi::cel::value_of(document));
  activation.set("oldSelf", kapi::cel::value_of(document));
  const kapi::cel::EvalOptions eval_options{.cost_limit = kapi::apiextensions::cel::kPerCallLimit};
  const auto first = program.eval(activation, eval_options);
  if (!first.value.is<bool>() || !first.value.get<bool>())
    throw std::runtime_error(test.rule + " gave " + kapi::cel::debug_string(first.value));
  Figures figures{.cost = static_cast<std::int64_t>(first.cost)};
  figures.ns = time_per_call([&] { (void)program.eval(activation, eval_options); }, options);
  return figures;
}

Figures run_validator(const json::value& schema, const json::value& object, bool update, const Options& options) {
  const auto validator = validator_of(schema);
  const json::value* old = update ? &object : nullptr;
  const auto first = validator->validate(object, old, false);
  if (!first.errors.empty()) throw std::runtime_error("the object fails the rules: " + first.errors.front().detail);
  Figures figures{.cost = kapi::apiextensions::cel::kRuntimeCostBudget - first.remaining_budget};
  figures.ns = time_per_call([&] { (void)validator->validate(object, old, false); }, options);
  return figures;
}

Options parse_options(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string argument = argv[i];
    auto value = [&argument](std::string_view flag) -> std::optional<std::string> {
      if (!argument.starts_with(flag)) return std::nullopt;
      return argument.substr(flag.size());
    };
    if (auto v = value("--min-time=")) options.min_seconds = std::stod(*v);
    else if (auto v = value("--batches=")) options.batches = std::max(1, std::stoi(*v));
    else if (auto v = value("--filter=")) options.filter = *v;
    else if (auto v = value("--data=")) options.data = *v;
    else throw std::invalid_argument("unknown argument " + argument +
                                     " (flags: --min-time=SECONDS --batches=N --filter=SUBSTRING --data=DIR)");
  }
  return options;
}

}  // namespace

int main(int argc, char** argv) try {
  const Options options = parse_options(argc, argv);
  const json::value schema = read_json(options.data + "/widget-schema.json");
  json::value object = read_json(options.data + "/widget.json");
  object.as_object()["metadata"].as_object()["name"] = "bench";
  const json::value& spec = object.as_object().at("spec");

  kapi::cel::Env env = kapi::cel::ext::kube_stored_env();
  env.add_variable("self", kapi::cel::Type::dyn());
  env.add_variable("oldSelf", kapi::cel::Type::dyn());
  json::value bare_schema = schema;
  strip_rules(bare_schema);

  std::printf("%-28s %10s %10s %6s %6s   %s\n", "rule", "engine ns", "crd ns", "cost", "crd", "expression");
  for (const auto& test : cases()) {
    if (!options.filter.empty() && test.name.find(options.filter) == std::string::npos) continue;
    const Figures engine = run_engine(env, test, spec, options);
    json::value one_rule = bare_schema;
    json::object& spec_schema = one_rule.at_pointer("/properties/spec").as_object();
    spec_schema["x-kubernetes-validations"] = json::array{json::object{{"rule", test.rule}}};
    const bool transition = test.rule.find("oldSelf") != std::string::npos;
    const Figures crd = run_validator(one_rule, object, transition, options);
    std::printf("%-28s %10.0f %10.0f %6lld %6lld   %s\n", test.name.c_str(), engine.ns, crd.ns,
                static_cast<long long>(engine.cost), static_cast<long long>(crd.cost), test.rule.c_str());
    std::fflush(stdout);
  }
  if (options.filter.empty() || std::string("widget").find(options.filter) != std::string::npos) {
    const Figures create = run_validator(schema, object, false, options);
    const Figures update = run_validator(schema, object, true, options);
    std::printf("%-28s %10s %10.0f %6s %6lld   the schema's 20 rules (19 run: no transition rule on create)\n",
                "widget, create", "", create.ns, "", static_cast<long long>(create.cost));
    std::printf("%-28s %10s %10.0f %6s %6lld   the 20 rules with oldSelf = the object (no ratcheting)\n",
                "widget, update", "", update.ns, "", static_cast<long long>(update.cost));
  }
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "kapi-cel-bench: %s\n", e.what());
  return 1;
}
