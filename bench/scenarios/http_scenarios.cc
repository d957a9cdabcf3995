// The request/response scenarios: create, get, update, patch, apply, list, static (nginx baseline) and fill (load N
// objects, timed).
#include "bench/scenarios/kube_api.h"
#include "bench/scenarios/scenario.h"

#include <chrono>
#include <random>
#include <stdexcept>

namespace kapi::bench {
namespace {

std::string run_id() {
  return std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count() %
                        100'000'000);
}

std::string describe_load(const LoadOptions& load) {
  if (load.mode == LoadMode::open)
    return "open-loop rate=" + std::to_string(static_cast<long>(load.rate)) + "/s max-inflight=" +
           std::to_string(load.concurrency);
  return "concurrency=" + std::to_string(load.concurrency);
}

// One body of what the scenario will fetch, for its size in the report (and a clear error if it is not there).
asio::awaitable<std::size_t> probe(asio::any_io_executor executor, ServerAddress server,
                                   const std::string& target) {
  HttpConnection connection(executor, server);
  HttpRequest request{.target = target};
  auto response = co_await connection.send(request, BodyHandling::keep);
  if (response.status != 200)
    throw std::runtime_error("GET " + target + ": HTTP " + std::to_string(response.status) + " " +
                             response.body.substr(0, 300));
  co_return response.body.size();
}

}  // namespace

asio::awaitable<ScenarioResult> run_http_scenario(asio::any_io_executor executor, const ScenarioOptions& options,
                                                  ProgressCallback progress,
                                                  std::vector<asio::any_io_executor> reactors) {
  const auto server = server_address(options);
  const std::string& scenario = options.scenario;
  ScenarioResult result{.scenario = scenario, .target = scenario == "static" ? "nginx" : "kapi"};
  const std::string collection = configmaps_path(options.namespace_name);
  const std::size_t fill_concurrency = std::min<std::size_t>(options.load.concurrency, 32);

  if (scenario == "fill") {
    ServerSampler sampler(executor, options.server_pid);
    sampler.start();
    result.load = co_await fill_namespace(executor, server, options.namespace_name, options.objects,
                                          options.object_bytes, fill_concurrency);
    if (sampler.enabled()) result.server = sampler.stop();
    result.parameters = "objects=" + std::to_string(options.objects) + " object=" +
                        std::to_string(options.object_bytes) + "B concurrency=" + std::to_string(fill_concurrency);
    co_return result;
  }

  if (scenario == "create") {
    HttpConnection setup(executor, server);
    co_await ensure_namespace(setup, options.namespace_name);
  } else if ((scenario == "get" || scenario == "update" || scenario == "patch" || scenario == "apply" ||
              scenario == "list") &&
             options.populate) {
    auto fill = co_await fill_namespace(executor, server, options.namespace_name, options.objects,
                                        options.object_bytes, fill_concurrency);
    if (fill.failures != 0) throw std::runtime_error("filling the namespace failed: " + fill.first_error);
  }

  // Each reactor the load runs on has connections of its own.
  const std::size_t slots = options.load.concurrency;
  auto pool_on = [server, slots](asio::any_io_executor on) {
    return std::make_shared<ConnectionPool>(std::move(on), server, slots);
  };
  OperationFactory operation;
  if (scenario == "create") {
    const std::string prefix = "c" + run_id() + "-";
    const std::size_t bytes = options.object_bytes;
    const std::string target = options.collection.empty() ? collection : options.collection;
    const std::string body_template = options.body_template;
    operation = [=](asio::any_io_executor on, std::size_t) -> Operation {
      return [pool = pool_on(on), target, prefix, bytes, body_template](
                 std::size_t slot, std::uint64_t sequence) -> asio::awaitable<Outcome> {
        const std::string name = prefix + std::to_string(sequence);
        const std::string body =
            body_template.empty() ? configmap_json(name, bytes) : fill_body_template(body_template, name);
        HttpRequest request{.method = "POST", .target = target, .body = body};
        co_return co_await pool->send(slot, request);
      };
    };
    result.parameters = describe_load(options.load) +
                        (body_template.empty() ? " object=" + std::to_string(options.object_bytes) + "B"
                                               : " POST " + target + " body=" +
                                                     std::to_string(body_template.size()) + "B template");
  } else if (scenario == "get") {
    const std::size_t objects = std::max<std::size_t>(options.objects, 1);
    const std::string query = options.consistent_list ? "" : "?resourceVersion=0";
    result.response_bytes = co_await probe(executor, server, collection + "/obj-0" + query);
    operation = [=](asio::any_io_executor on, std::size_t part) -> Operation {
      auto random = std::make_shared<std::mt19937_64>(42 + part);
      return [pool = pool_on(on), collection, random, objects, query](std::size_t slot,
                                                                      std::uint64_t) -> asio::awaitable<Outcome> {
        const std::string target = collection + "/obj-" + std::to_string((*random)() % objects) + query;
        HttpRequest request{.target = target};
        co_return co_await pool->send(slot, request);
      };
    };
    result.parameters = describe_load(options.load) + " objects=" + std::to_string(options.objects) + " object=" +
                        std::to_string(options.object_bytes) + "B" + (options.consistent_list ? " consistent" : " rv=0");
  } else if (scenario == "update" || scenario == "patch" || scenario == "apply") {
    // Each request changes one random object: a PUT of the whole object without a resourceVersion (an
    // unconditional update, which ConfigMaps allow), a JSON merge patch of one key, or a server-side apply of that
    // one key (forced: the first apply takes it from the manager that created the object). Objects keep their size.
    const std::size_t objects = std::max<std::size_t>(options.objects, 1);
    const std::size_t bytes = options.object_bytes;
    operation = [=](asio::any_io_executor on, std::size_t part) -> Operation {
      auto random = std::make_shared<std::mt19937_64>(42 + part);
      return [pool = pool_on(on), collection, random, objects, bytes, scenario](
                  std::size_t slot, std::uint64_t sequence) -> asio::awaitable<Outcome> {
        const std::string name = "obj-" + std::to_string((*random)() % objects);
        const std::string stamp = std::to_string(sequence);
        std::string target = collection + "/" + name;
        std::string body;
        HttpRequest request{.method = "PATCH"};
        if (scenario == "update") {
          request.method = "PUT";
          body = configmap_json(name, bytes, "revision", stamp);
        } else if (scenario == "patch") {
          body = R"({"data":{"revision":")" + stamp + "\"}}";
          request.content_type = "application/merge-patch+json";
        } else {
          target += "?fieldManager=kapi-bench-apply&force=true";
          body = R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":")" + name + R"("},"data":{"revision":")" +
                 stamp + "\"}}";
          request.content_type = "application/apply-patch+yaml";
        }
        request.target = target;  // views of the strings above, which outlive the request
        request.body = body;
        co_return co_await pool->send(slot, request);
      };
    };
    result.parameters = describe_load(options.load) + " objects=" + std::to_string(options.objects) + " object=" +
                        std::to_string(options.object_bytes) + "B";
  } else if (scenario == "list" || scenario == "static") {
    std::string target = scenario == "static" ? options.path
                                              : collection + (options.consistent_list ? "" : "?resourceVersion=0");
    result.response_bytes = co_await probe(executor, server, target);
    operation = [=](asio::any_io_executor on, std::size_t) -> Operation {
      return [pool = pool_on(on), target](std::size_t slot, std::uint64_t) -> asio::awaitable<Outcome> {
        HttpRequest request{.target = target};
        co_return co_await pool->send(slot, request);
      };
    };
    result.parameters = describe_load(options.load) + (scenario == "static" ? " path=" + target
                                                                            : " objects=" + std::to_string(options.objects) +
                                                                                  (options.consistent_list ? " consistent" : " rv=0"));
    result.parameters += " response=" + std::to_string(result.response_bytes) + "B";
  } else {
    throw std::invalid_argument("unknown scenario " + scenario);
  }

  ServerSampler sampler(executor, options.server_pid);
  // The sampler covers the warm-up too: memory a LIST needs is there from its first request.
  sampler.start();
  if (reactors.empty()) reactors.push_back(executor);
  result.load = co_await run_load_on(std::move(reactors), options.load, std::move(operation), std::move(progress));
  if (sampler.enabled()) result.server = sampler.stop();
  co_return result;
}

asio::awaitable<ScenarioResult> run_scenario(asio::any_io_executor executor, ScenarioOptions options,
                                             ProgressCallback progress, std::vector<asio::any_io_executor> reactors) {
  if (options.scenario == "watch") co_return co_await run_watch_scenario(executor, options, std::move(progress));
  if (options.scenario == "etcd-txn") co_return co_await run_etcd_txn_scenario(executor, options, std::move(progress));
  if (options.scenario == "mixed") co_return co_await run_mixed_scenario(executor, options, std::move(progress));
  co_return co_await run_http_scenario(executor, options, std::move(progress), std::move(reactors));
}

}  // namespace kapi::bench
