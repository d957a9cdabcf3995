// AuthorizationConfiguration: load.LoadFromFile's strict decoding, the v1/v1beta1 defaults
// (SetDefaults_WebhookConfiguration), ValidateAuthorizationConfiguration, and the authorization CEL compiler and
// matcher of matchConditions (k8s.io/apiserver/pkg/authorization/cel).
#include "server/authorization/authorization_config.h"

#include "base/duration.h"
#include "base/name_validation.h"
#include "cel/ext/kube_env.h"
#include "cel/json.h"
#include "cel/program.h"
#include "server/schema/yaml_to_json.h"

#include <boost/json.hpp>

#include <fstream>
#include <set>
#include <sstream>

namespace kapi::authorization {
namespace {

namespace json = boost::json;
using validation::ErrorList;
using validation::Path;

// kube's celconfig.RuntimeCELCostBudgetMatchConditions... for authorization, the per-call limit of its compiler.
constexpr std::uint64_t kMatchConditionCostLimit = 1'000'000;

// The decoder is strict: a field the type does not have is an error, named by its path.
void refuse_unknown(const json::object& object, std::initializer_list<std::string_view> known, const std::string& path) {
  for (const auto& [key, value] : object) {
    if (std::find(known.begin(), known.end(), std::string_view(key)) != known.end()) continue;
    throw AuthorizationConfigError("strict decoding error: unknown field \"" + (path.empty() ? "" : path + ".") +
                                   std::string(key) + "\"");
  }
}

std::string string_member(const json::object& object, std::string_view key, const std::string& path) {
  const json::value* value = object.if_contains(key);
  if (!value || value->is_null()) return {};
  if (!value->is_string())
    throw AuthorizationConfigError("json: cannot unmarshal " + std::string(value->is_number() ? "number" : "object") +
                                   " into Go struct field " + path + "." + std::string(key) + " of type string");
  return std::string(value->as_string());
}

std::chrono::nanoseconds duration_member(const json::object& object, std::string_view key, const std::string& path) {
  const std::string text = string_member(object, key, path);
  if (text.empty()) return std::chrono::nanoseconds(0);
  std::optional<std::chrono::nanoseconds> parsed = base::parse_go_duration(text);
  if (!parsed) throw AuthorizationConfigError("time: invalid duration " + json::serialize(json::value(text)));
  return *parsed;
}

std::optional<bool> bool_member(const json::object& object, std::string_view key) {
  const json::value* value = object.if_contains(key);
  if (!value || !value->is_bool()) return std::nullopt;
  return value->as_bool();
}

const json::object* object_member(const json::object& object, std::string_view key) {
  const json::value* value = object.if_contains(key);
  return value && value->is_object() ? &value->as_object() : nullptr;
}

WebhookConfiguration decode_webhook(const json::object& object, const std::string& path) {
  refuse_unknown(object, {"timeout", "subjectAccessReviewVersion", "matchConditionSubjectAccessReviewVersion",
                          "failurePolicy", "authorizedTTL", "unauthorizedTTL", "cacheAuthorizedRequests",
                          "cacheUnauthorizedRequests", "connectionInfo", "matchConditions"},
                 path);
  WebhookConfiguration webhook;
  webhook.timeout = duration_member(object, "timeout", path);
  webhook.subject_access_review_version = string_member(object, "subjectAccessReviewVersion", path);
  webhook.match_condition_subject_access_review_version =
      string_member(object, "matchConditionSubjectAccessReviewVersion", path);
  webhook.failure_policy = string_member(object, "failurePolicy", path);
  webhook.authorized_ttl = duration_member(object, "authorizedTTL", path);
  webhook.unauthorized_ttl = duration_member(object, "unauthorizedTTL", path);
  webhook.cache_authorized_requests = bool_member(object, "cacheAuthorizedRequests").value_or(true);
  webhook.cache_unauthorized_requests = bool_member(object, "cacheUnauthorizedRequests").value_or(true);
  // SetDefaults_WebhookConfiguration.
  if (webhook.authorized_ttl.count() == 0) webhook.authorized_ttl = std::chrono::minutes(5);
  if (webhook.unauthorized_ttl.count() == 0)
    webhook.unauthorized_ttl = std::chrono::seconds(30);
  if (const json::object* connection = object_member(object, "connectionInfo")) {
    refuse_unknown(*connection, {"type", "kubeConfigFile"}, path + ".connectionInfo");
    webhook.connection_type = string_member(*connection, "type", path + ".connectionInfo");
    if (connection->if_contains("kubeConfigFile"))
      webhook.kube_config_file = string_member(*connection, "kubeConfigFile", path + ".connectionInfo");
  }
  if (const json::value* conditions = object.if_contains("matchConditions"); conditions && conditions->is_array()) {
    std::size_t index = 0;
    for (const json::value& condition : conditions->as_array()) {
      const std::string condition_path = path + ".matchConditions[" + std::to_string(index++) + "]";
      if (!condition.is_object()) throw AuthorizationConfigError("json: cannot unmarshal into Go struct field " + condition_path);
      refuse_unknown(condition.as_object(), {"expression"}, condition_path);
      webhook.match_conditions.push_back(string_member(condition.as_object(), "expression", condition_path));
    }
  }
  return webhook;
}

std::string aggregate(const ErrorList& errors) {
  if (errors.size() == 1) return errors.front().text();
  std::string all = "[";
  for (const auto& error : errors) all += (all.size() > 1 ? ", " : "") + error.text();
  return all + "]";
}

// kube's authorization CEL environment: `request` is the v1 SubjectAccessReviewSpec, its nested types as kube
// declares them (selectors included: AuthorizeWithSelectors is on in 1.32).
std::shared_ptr<const cel::Env> match_condition_env() {
  using cel::Type;
  auto object = [](std::string name, std::map<std::string, Type, std::less<>> fields) {
    auto type = std::make_shared<cel::ObjectType>();
    type->name = std::move(name);
    type->fields = std::move(fields);
    return Type::object(std::move(type));
  };
  const Type strings = Type::list(Type::string_type());
  const Type field_requirement = object("kubernetes.FieldSelectorRequirement",
                                        {{"key", Type::string_type()}, {"operator", Type::string_type()}, {"values", strings}});
  const Type label_requirement = object("kubernetes.LabelSelectorRequirement",
                                        {{"key", Type::string_type()}, {"operator", Type::string_type()}, {"values", strings}});
  const Type field_selector = object("kubernetes.FieldSelectorAttributes",
                                     {{"rawSelector", Type::string_type()}, {"requirements", Type::list(field_requirement)}});
  const Type label_selector = object("kubernetes.LabelSelectorAttributes",
                                     {{"rawSelector", Type::string_type()}, {"requirements", Type::list(label_requirement)}});
  const Type resource = object("kubernetes.ResourceAttributes",
                               {{"namespace", Type::string_type()}, {"verb", Type::string_type()},
                                {"group", Type::string_type()}, {"version", Type::string_type()},
                                {"resource", Type::string_type()}, {"subresource", Type::string_type()},
                                {"name", Type::string_type()}, {"fieldSelector", field_selector},
                                {"labelSelector", label_selector}});
  const Type non_resource = object("kubernetes.NonResourceAttributes",
                                   {{"path", Type::string_type()}, {"verb", Type::string_type()}});
  const Type spec = object("kubernetes.SubjectAccessReviewSpec",
                           {{"resourceAttributes", resource}, {"nonResourceAttributes", non_resource},
                            {"user", Type::string_type()}, {"groups", strings},
                            {"extra", Type::map(Type::string_type(), strings)}, {"uid", Type::string_type()}});
  auto env = std::make_shared<cel::Env>(cel::ext::kube_base_env());
  env->add_variable("request", spec);
  return env;
}

}  // namespace

std::function<MatchOutcome(const json::object& review)> compile_match_conditions(
    const std::vector<std::string>& expressions, const Path& path, ErrorList* errors) {
  if (expressions.empty()) return nullptr;
  ErrorList local;
  ErrorList& out = errors ? *errors : local;
  if (expressions.size() > 64) {
    out.push_back({validation::ErrorType::TooMany, path.child("matchConditions").str(), std::to_string(expressions.size()),
                   "must have at most 64 items"});
    return nullptr;
  }
  struct Compiled {
    std::string expression;
    cel::Program program;
  };
  auto env = match_condition_env();
  auto compiled = std::make_shared<std::vector<Compiled>>();
  std::set<std::string> seen;
  for (std::size_t index = 0; index < expressions.size(); ++index) {
    const Path expression_path = path.child("matchConditions").index(index).child("expression");
    const std::string& text = expressions[index];
    if (text.find_first_not_of(" \t\r\n") == std::string::npos) {
      out.push_back(validation::required(expression_path));
      continue;
    }
    if (!seen.insert(text).second) {
      out.push_back(validation::duplicate(expression_path, text));
      continue;
    }
    cel::CheckResult checked = cel::ext::compile_kube(*env, text);
    if (!checked.ast) {
      out.push_back(validation::invalid(expression_path, text, "compilation failed: " + checked.message));
      continue;
    }
    if (checked.ast->result_type().kind() != cel::TypeKind::kBool) {
      out.push_back(validation::invalid(expression_path, text,
                                        "must evaluate to bool but got " + checked.ast->result_type().to_string()));
      continue;
    }
    auto ast = std::make_shared<const cel::CheckedAst>(std::move(*checked.ast));
    compiled->push_back({text, cel::Program::plan(env, ast)});
  }
  if (!out.empty() || !errors) {
    if (!errors && !local.empty()) throw AuthorizationConfigError(aggregate(local));
  }
  if (compiled->empty()) return nullptr;
  // CELMatcher.Eval: any condition false skips the webhook (the errors before it still counted); otherwise the
  // evaluation errors, aggregated.
  return [compiled](const json::object& review) {
    auto document = std::make_shared<const json::value>(review.at("spec"));
    cel::MapActivation activation;
    activation.set("request", cel::value_of(document));
    std::vector<std::string> failures;
    MatchOutcome outcome;
    for (const Compiled& condition : *compiled) {
      cel::EvalResult result = condition.program.eval(activation, cel::EvalOptions{kMatchConditionCostLimit});
      if (result.value.is_error()) {
        failures.push_back("cel evaluation error: expression '" + condition.expression +
                           "' resulted in error: " + result.value.get<cel::Error>().message);
        continue;
      }
      if (result.value.is<bool>() && !result.value.get<bool>()) {
        outcome.excluded = true;
        break;
      }
    }
    outcome.errored = !failures.empty();
    if (outcome.excluded) return outcome;
    if (failures.size() == 1) outcome.error = failures.front();
    if (failures.size() > 1) {
      outcome.error = "[";
      for (const auto& failure : failures) outcome.error += (outcome.error.size() > 1 ? ", " : "") + failure;
      outcome.error += "]";
    }
    return outcome;
  };
}

validation::ErrorList validate_authorization_configuration(const AuthorizationConfiguration& config) {
  ErrorList errors;
  const Path root("");
  if (config.authorizers.empty())
    errors.push_back(validation::required(root.child("authorizers"), "at least one authorization mode must be defined"));
  const std::vector<std::string> known = {"ABAC", "AlwaysAllow", "AlwaysDeny", "Node", "RBAC", "Webhook"};
  std::set<std::string> seen_types;
  std::set<std::string> seen_names;
  for (std::size_t index = 0; index < config.authorizers.size(); ++index) {
    const AuthorizerConfiguration& authorizer = config.authorizers[index];
    const Path path = root.child("authorizers").index(index);
    if (authorizer.type.empty()) {
      errors.push_back(validation::required(path.child("type")));
      continue;
    }
    if (std::find(known.begin(), known.end(), authorizer.type) == known.end()) {
      errors.push_back(validation::not_supported(path.child("type"), authorizer.type, known));
      continue;
    }
    if (seen_types.count(authorizer.type) && authorizer.type != "Webhook") {
      errors.push_back(validation::duplicate(path.child("type"), authorizer.type));
      continue;
    }
    seen_types.insert(authorizer.type);
    if (authorizer.name.empty()) {
      errors.push_back(validation::required(path.child("name")));
    } else if (seen_names.count(authorizer.name)) {
      errors.push_back(validation::duplicate(path.child("name"), authorizer.name));
    } else if (std::vector<std::string> problems = validation::is_dns1123_subdomain(authorizer.name); !problems.empty()) {
      std::string joined;
      for (const auto& problem : problems) joined += (joined.empty() ? "" : ", ") + problem;
      errors.push_back(validation::invalid(path.child("name"), authorizer.name, "authorizer name is invalid: " + joined));
    }
    seen_names.insert(authorizer.name);
    if (authorizer.type != "Webhook") {
      if (authorizer.webhook)
        errors.push_back(validation::invalid(path.child("webhook"), "non-null", "may only be specified when type=Webhook"));
      continue;
    }
    if (!authorizer.webhook) {
      errors.push_back(validation::required(path.child("webhook"), "required when type=Webhook"));
      continue;
    }
    const WebhookConfiguration& webhook = *authorizer.webhook;
    const Path webhook_path = path.child("webhook");
    if (webhook.timeout.count() == 0)
      errors.push_back(validation::required(webhook_path.child("timeout")));
    else if (webhook.timeout > std::chrono::seconds(30) || webhook.timeout.count() < 0)
      errors.push_back(validation::invalid(webhook_path.child("timeout"), base::format_go_duration(webhook.timeout),
                                           "must be > 0s and <= 30s"));
    if (webhook.authorized_ttl.count() == 0)
      errors.push_back(validation::required(webhook_path.child("authorizedTTL")));
    else if (webhook.authorized_ttl.count() < 0)
      errors.push_back(validation::invalid(webhook_path.child("authorizedTTL"),
                                           base::format_go_duration(webhook.authorized_ttl), "must be > 0s"));
    if (webhook.unauthorized_ttl.count() == 0)
      errors.push_back(validation::required(webhook_path.child("unauthorizedTTL")));
    else if (webhook.unauthorized_ttl.count() < 0)
      errors.push_back(validation::invalid(webhook_path.child("unauthorizedTTL"),
                                           base::format_go_duration(webhook.unauthorized_ttl), "must be > 0s"));
    const std::string& version = webhook.subject_access_review_version;
    if (version.empty())
      errors.push_back(validation::required(webhook_path.child("subjectAccessReviewVersion")));
    else if (version != "v1" && version != "v1beta1")
      errors.push_back(validation::not_supported(webhook_path.child("subjectAccessReviewVersion"), version, {"v1", "v1beta1"}));
    const std::string& match_version = webhook.match_condition_subject_access_review_version;
    if (match_version.empty()) {
      if (!webhook.match_conditions.empty())
        errors.push_back(validation::required(webhook_path.child("matchConditionSubjectAccessReviewVersion"),
                                              "required if match conditions are specified"));
    } else if (match_version != "v1") {
      errors.push_back(validation::not_supported(webhook_path.child("matchConditionSubjectAccessReviewVersion"),
                                                 match_version, {"v1"}));
    }
    if (webhook.failure_policy.empty())
      errors.push_back(validation::required(webhook_path.child("failurePolicy")));
    else if (webhook.failure_policy != "NoOpinion" && webhook.failure_policy != "Deny")
      errors.push_back(validation::not_supported(webhook_path.child("failurePolicy"), webhook.failure_policy,
                                                 {"NoOpinion", "Deny"}));
    const Path connection = webhook_path.child("connectionInfo");
    if (webhook.connection_type.empty()) {
      errors.push_back(validation::required(connection.child("type")));
    } else if (webhook.connection_type == "InClusterConfig") {
      if (webhook.kube_config_file)
        errors.push_back(validation::invalid(connection.child("kubeConfigFile"), *webhook.kube_config_file,
                                             "can only be set when type=KubeConfigFile"));
    } else if (webhook.connection_type == "KubeConfigFile") {
      const Path file_path = connection.child("kubeConfigFile");
      std::error_code error;
      if (!webhook.kube_config_file || webhook.kube_config_file->empty())
        errors.push_back(validation::required(file_path));
      else if (!std::filesystem::path(*webhook.kube_config_file).is_absolute())
        errors.push_back(validation::invalid(file_path, *webhook.kube_config_file, "must be an absolute path"));
      else if (const auto status = std::filesystem::status(*webhook.kube_config_file, error); error)
        errors.push_back(validation::invalid(file_path, *webhook.kube_config_file,
                                             "error loading file: stat " + *webhook.kube_config_file +
                                                 ": no such file or directory"));
      else if (!std::filesystem::is_regular_file(status))
        errors.push_back(validation::invalid(file_path, *webhook.kube_config_file, "must be a regular file"));
    } else {
      errors.push_back(validation::not_supported(connection.child("type"), webhook.connection_type,
                                                 {"InClusterConfig", "KubeConfigFile"}));
    }
    compile_match_conditions(webhook.match_conditions, webhook_path, &errors);
  }
  return errors;
}

AuthorizationConfiguration parse_authorization_configuration(std::string_view text) {
  json::value document;
  try {
    document = schema::yaml_to_json(text).value;
  } catch (const schema::YamlError& error) {
    throw AuthorizationConfigError(error.what());
  }
  if (!document.is_object()) throw AuthorizationConfigError("Object 'Kind' is missing in '" + std::string(text) + "'");
  const json::object& object = document.as_object();
  const std::string api_version = string_member(object, "apiVersion", "");
  const std::string kind = string_member(object, "kind", "");
  if (kind.empty()) throw AuthorizationConfigError("Object 'Kind' is missing in '" + std::string(text) + "'");
  if (api_version != "apiserver.config.k8s.io/v1" && api_version != "apiserver.config.k8s.io/v1beta1" &&
      api_version != "apiserver.config.k8s.io/v1alpha1")
    throw AuthorizationConfigError("no kind \"" + kind + "\" is registered for version \"" + api_version + "\"");
  if (kind != "AuthorizationConfiguration")
    throw AuthorizationConfigError("no kind \"" + kind + "\" is registered for version \"" + api_version + "\"");
  refuse_unknown(object, {"apiVersion", "kind", "authorizers"}, "");
  AuthorizationConfiguration config;
  if (const json::value* authorizers = object.if_contains("authorizers"); authorizers && authorizers->is_array()) {
    std::size_t index = 0;
    for (const json::value& item : authorizers->as_array()) {
      const std::string path = "authorizers[" + std::to_string(index++) + "]";
      if (!item.is_object()) throw AuthorizationConfigError("json: cannot unmarshal into Go struct field " + path);
      const json::object& entry = item.as_object();
      refuse_unknown(entry, {"type", "name", "webhook"}, path);
      AuthorizerConfiguration authorizer;
      authorizer.type = string_member(entry, "type", path);
      authorizer.name = string_member(entry, "name", path);
      if (const json::object* webhook = object_member(entry, "webhook"))
        authorizer.webhook = decode_webhook(*webhook, path + ".webhook");
      config.authorizers.push_back(std::move(authorizer));
    }
  }
  ErrorList errors = validate_authorization_configuration(config);
  if (!errors.empty()) throw AuthorizationConfigError(aggregate(errors));
  return config;
}

AuthorizationConfiguration load_authorization_configuration(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw AuthorizationConfigError("failed to read file path \"" + path.string() + "\": open " + path.string() +
                                          ": no such file or directory");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_authorization_configuration(text.str());
}

WebhookAuthorizerOptions webhook_options(const AuthorizerConfiguration& authorizer,
                                         metrics::AuthorizationFamilies* metrics) {
  const WebhookConfiguration& webhook = *authorizer.webhook;
  if (webhook.connection_type == "InClusterConfig")
    throw AuthorizationConfigError("authorizers of connectionInfo.type InClusterConfig are not supported by kapi (no "
                                   "in-cluster service account credentials)");
  WebhookAuthorizerOptions options;
  options.name = authorizer.name;
  try {
    options.target = webhook::load_kubeconfig(*webhook.kube_config_file);
  } catch (const webhook::KubeconfigError& error) {
    throw AuthorizationConfigError(error.what());
  }
  options.version = webhook.subject_access_review_version;
  options.timeout = std::chrono::duration_cast<std::chrono::milliseconds>(webhook.timeout);
  options.authorized_ttl = webhook.authorized_ttl;
  options.unauthorized_ttl = webhook.unauthorized_ttl;
  options.cache_authorized = webhook.cache_authorized_requests;
  options.cache_unauthorized = webhook.cache_unauthorized_requests;
  options.decision_on_error = webhook.failure_policy == "Deny" ? Decision::Deny : Decision::NoOpinion;
  options.matches = compile_match_conditions(webhook.match_conditions, Path(""), nullptr);
  options.metrics = metrics;
  return options;
}

}  // namespace kapi::authorization
