#include "server/audit/policy.h"

#include "base/go_quote.h"
#include "base/name_validation.h"
#include "server/schema/yaml_to_json.h"
#include "server/validation/field_error.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace kapi::audit {
namespace {

namespace json = boost::json;
using validation::Path;

constexpr std::string_view kApiVersion = "audit.k8s.io/v1";

bool contains(const std::vector<std::string>& list, std::string_view value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

// Reading the document: a wrong JSON type is a decoding error, as Go's json.Unmarshal reports one.
class Reader {
 public:
  static std::string text(const json::value& value, const Path& path) {
    if (value.is_null()) return {};
    if (!value.is_string()) throw decoding_error(path, "string");
    return std::string(value.get_string());
  }
  static std::vector<std::string> strings(const json::value& value, const Path& path) {
    std::vector<std::string> out;
    if (value.is_null()) return out;
    if (!value.is_array()) throw decoding_error(path, "[]string");
    for (std::size_t i = 0; i < value.get_array().size(); ++i) out.push_back(text(value.get_array()[i], path.index(i)));
    return out;
  }
  static bool boolean(const json::value& value, const Path& path) {
    if (!value.is_bool()) throw decoding_error(path, "bool");
    return value.get_bool();
  }
  static const json::array& array(const json::value& value, const Path& path) {
    static const json::array empty;
    if (value.is_null()) return empty;
    if (!value.is_array()) throw decoding_error(path, "array");
    return value.get_array();
  }
  static const json::object& object(const json::value& value, const Path& path) {
    if (!value.is_object()) throw decoding_error(path, "object");
    return value.get_object();
  }

 private:
  static PolicyError decoding_error(const Path& path, std::string_view expected) {
    return PolicyError("failed decoding: json: cannot unmarshal into Go struct field Policy." + path.str() +
                       " of type " + std::string(expected));
  }
};

// Stages are checked after decoding, by validation, so an unknown one is kept by name until then.
struct RawStages {
  std::vector<std::string> names;
};

std::vector<Stage> stages_of(const RawStages& raw) {
  std::vector<Stage> out;
  for (const auto& name : raw.names)
    if (auto stage = parse_stage(name)) out.push_back(*stage);
  return out;
}

std::vector<validation::FieldError> validate_stages(const RawStages& raw, const Path& path) {
  std::vector<validation::FieldError> errors;
  for (std::size_t i = 0; i < raw.names.size(); ++i)
    if (!parse_stage(raw.names[i]))
      errors.push_back(validation::invalid(path.index(i), raw.names[i],
                                           "allowed stages are RequestReceived,ResponseStarted,ResponseComplete,Panic"));
  return errors;
}

// One rule, decoded and validated (validatePolicyRule).
PolicyRule read_rule(const json::value& value, const Path& path, validation::ErrorList& errors) {
  const json::object& fields = Reader::object(value, path);
  PolicyRule rule;
  std::string level;
  RawStages omit_stages;
  std::vector<std::string> resource_names_seen;
  for (const auto& [key, field] : fields) {
    Path at = path.child(key);
    if (key == "level") level = Reader::text(field, at);
    else if (key == "users") rule.users = Reader::strings(field, at);
    else if (key == "userGroups") rule.user_groups = Reader::strings(field, at);
    else if (key == "verbs") rule.verbs = Reader::strings(field, at);
    else if (key == "namespaces") rule.namespaces = Reader::strings(field, at);
    else if (key == "nonResourceURLs") rule.non_resource_urls = Reader::strings(field, at);
    else if (key == "omitStages") omit_stages.names = Reader::strings(field, at);
    else if (key == "omitManagedFields" && !field.is_null()) rule.omit_managed_fields = Reader::boolean(field, at);
    else if (key == "resources") {
      const json::array& list = Reader::array(field, at);
      for (std::size_t i = 0; i < list.size(); ++i) {
        const json::object& entry = Reader::object(list[i], at.index(i));
        GroupResources group;
        if (auto it = entry.find("group"); it != entry.end()) group.group = Reader::text(it->value(), at.index(i).child("group"));
        if (auto it = entry.find("resources"); it != entry.end())
          group.resources = Reader::strings(it->value(), at.index(i).child("resources"));
        if (auto it = entry.find("resourceNames"); it != entry.end())
          group.resource_names = Reader::strings(it->value(), at.index(i).child("resourceNames"));
        rule.resources.push_back(std::move(group));
      }
    }
  }

  Path level_path = path.child("level");
  if (auto parsed = parse_level(level)) {
    rule.level = *parsed;
  } else if (level.empty()) {
    errors.push_back(validation::required(level_path));
  } else {
    errors.push_back(validation::not_supported(level_path, level, {"None", "Metadata", "Request", "RequestResponse"}));
  }
  Path urls_path = path.child("nonResourceURLs");
  for (std::size_t i = 0; i < rule.non_resource_urls.size(); ++i) {
    const std::string& url = rule.non_resource_urls[i];
    if (url == "*") continue;
    if (!url.starts_with('/'))
      errors.push_back(validation::invalid(urls_path.index(i), url, "non-resource URL rules must begin with a '/' character"));
    if (!url.empty() && url.substr(0, url.size() - 1).find('*') != std::string::npos)
      errors.push_back(validation::invalid(urls_path.index(i), url,
                                           "non-resource URL wildcards '*' must be the final character of the rule"));
  }
  Path resources_path = path.child("resources");
  for (const auto& group : rule.resources) {
    if (!group.group.empty()) {
      auto messages = validation::is_dns1123_subdomain(group.group);
      if (!messages.empty()) {
        std::string joined;
        for (const auto& message : messages) joined += (joined.empty() ? "" : ",") + message;
        errors.push_back(validation::invalid(resources_path.child("group"), group.group, joined));
      }
    }
    if (!group.resource_names.empty() && group.resources.empty())
      errors.push_back(validation::invalid_value(resources_path.child("resourceNames"),
                                                 base::go_string_slice(group.resource_names),
                                                 "using resourceNames requires at least one resource"));
  }
  auto stage_errors = validate_stages(omit_stages, path.child("omitStages"));
  errors.insert(errors.end(), stage_errors.begin(), stage_errors.end());
  rule.omit_stages = stages_of(omit_stages);
  if (!rule.non_resource_urls.empty() && (!rule.resources.empty() || !rule.namespaces.empty()))
    errors.push_back(validation::invalid_value(urls_path, base::go_string_slice(rule.non_resource_urls),
                                               "rules cannot apply to both regular resources and non-resource URLs"));
  return rule;
}

// field.ErrorList.ToAggregate().Error(): one message alone, several in brackets.
std::string aggregate(const validation::ErrorList& errors) {
  if (errors.size() == 1) return errors.front().text();
  std::string out = "[";
  for (std::size_t i = 0; i < errors.size(); ++i) out += (i ? ", " : "") + errors[i].text();
  return out + "]";
}

// pathMatches of the policy checker: exact, "*", or a prefix ending in "*".
bool path_matches(std::string_view path, std::string_view spec) {
  if (spec == "*" || spec == path) return true;
  if (spec.ends_with('*')) {
    std::string_view prefix = spec;
    while (prefix.ends_with('*')) prefix.remove_suffix(1);  // strings.TrimRight(spec, "*")
    return path.starts_with(prefix);
  }
  return false;
}

bool matches_resource(const PolicyRule& rule, const authorization::Attributes& attributes) {
  if (!attributes.resource_request) return false;
  if (!rule.namespaces.empty() && !contains(rule.namespaces, attributes.namespace_)) return false;
  if (rule.resources.empty()) return true;
  const std::string& resource = attributes.resource;
  const std::string& subresource = attributes.subresource;
  std::string combined = subresource.empty() ? resource : resource + "/" + subresource;
  for (const auto& group : rule.resources) {
    if (group.group != attributes.api_group) continue;
    if (group.resources.empty()) return true;
    for (std::string_view spec : group.resources) {
      if (!group.resource_names.empty() && !contains(group.resource_names, attributes.name)) continue;
      if (spec == "*" || spec == combined) return true;
      if (!subresource.empty() && spec.starts_with("*/") && spec.substr(2) == subresource) return true;
      if (spec.ends_with("/*") && spec.substr(0, spec.size() - 2) == resource) return true;
    }
  }
  return false;
}

bool matches(const PolicyRule& rule, const authorization::Attributes& attributes) {
  const auto& user = attributes.user;
  if (!rule.users.empty() && (user.name.empty() || !contains(rule.users, user.name))) return false;
  if (!rule.user_groups.empty()) {
    bool member = std::any_of(user.groups.begin(), user.groups.end(),
                              [&](const std::string& group) { return contains(rule.user_groups, group); });
    if (!member) return false;
  }
  if (!rule.verbs.empty() && !contains(rule.verbs, attributes.verb)) return false;
  if (!rule.namespaces.empty() || !rule.resources.empty()) return matches_resource(rule, attributes);
  if (!rule.non_resource_urls.empty()) {
    if (attributes.resource_request) return false;
    return std::any_of(rule.non_resource_urls.begin(), rule.non_resource_urls.end(),
                       [&](const std::string& spec) { return path_matches(attributes.path, spec); });
  }
  return true;
}

std::vector<Stage> union_of(std::vector<Stage> first, const std::vector<Stage>& second) {
  for (Stage stage : second)
    if (std::find(first.begin(), first.end(), stage) == first.end()) first.push_back(stage);
  return first;
}

}  // namespace

std::string_view to_string(Level level) {
  switch (level) {
    case Level::None: return "None";
    case Level::Metadata: return "Metadata";
    case Level::Request: return "Request";
    case Level::RequestResponse: return "RequestResponse";
  }
  return "None";
}

std::string_view to_string(Stage stage) {
  switch (stage) {
    case Stage::RequestReceived: return "RequestReceived";
    case Stage::ResponseStarted: return "ResponseStarted";
    case Stage::ResponseComplete: return "ResponseComplete";
    case Stage::Panic: return "Panic";
  }
  return "Panic";
}

std::optional<Level> parse_level(std::string_view text) {
  for (Level level : {Level::None, Level::Metadata, Level::Request, Level::RequestResponse})
    if (to_string(level) == text) return level;
  return std::nullopt;
}

std::optional<Stage> parse_stage(std::string_view text) {
  for (Stage stage : {Stage::RequestReceived, Stage::ResponseStarted, Stage::ResponseComplete, Stage::Panic})
    if (to_string(stage) == text) return stage;
  return std::nullopt;
}

bool RequestAuditConfig::omits(Stage stage) const {
  return std::find(omit_stages.begin(), omit_stages.end(), stage) != omit_stages.end();
}

Policy parse_policy(std::string_view text) {
  json::value document;
  try {
    document = schema::yaml_to_json(text).value;
  } catch (const schema::YamlError& error) {
    throw PolicyError(std::string("failed decoding: ") + error.what());
  }
  if (!document.is_object()) throw PolicyError("failed decoding: Object 'Kind' is missing in '" + std::string(text) + "'");
  const json::object& fields = document.get_object();
  auto string_field = [&](std::string_view name) -> std::string {
    auto it = fields.find(name);
    return it != fields.end() && it->value().is_string() ? std::string(it->value().get_string()) : std::string();
  };
  std::string kind = string_field("kind"), api_version = string_field("apiVersion");
  if (kind.empty()) throw PolicyError("failed decoding: Object 'Kind' is missing in '" + std::string(text) + "'");
  if (api_version != kApiVersion || kind != "Policy")
    throw PolicyError("failed decoding: no kind \"" + kind + "\" is registered for version \"" + api_version +
                      "\" in scheme \"k8s.io/apiserver/pkg/audit/scheme.go:30\"");

  Policy policy;
  validation::ErrorList errors;
  RawStages omit_stages;
  for (const auto& [key, field] : fields) {
    Path at(key);
    if (key == "rules") {
      const json::array& rules = Reader::array(field, at);
      for (std::size_t i = 0; i < rules.size(); ++i) policy.rules.push_back(read_rule(rules[i], at.index(i), errors));
    } else if (key == "omitStages") {
      omit_stages.names = Reader::strings(field, at);
    } else if (key == "omitManagedFields" && !field.is_null()) {
      policy.omit_managed_fields = Reader::boolean(field, at);
    }
  }
  auto stage_errors = validate_stages(omit_stages, Path("omitStages"));
  errors.insert(errors.end(), stage_errors.begin(), stage_errors.end());
  policy.omit_stages = stages_of(omit_stages);
  if (!errors.empty()) throw PolicyError(aggregate(errors));
  if (policy.rules.empty()) throw PolicyError("loaded illegal policy with 0 rules");
  return policy;
}

Policy load_policy_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::string reason = std::strerror(errno);  // Go's syscall messages are lower-case
    if (!reason.empty()) reason[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(reason[0])));
    throw PolicyError("failed to read file path \"" + path.string() + "\": open " + path.string() + ": " + reason);
  }
  std::ostringstream text;
  text << in.rdbuf();
  try {
    return parse_policy(text.str());
  } catch (const PolicyError& error) {
    throw PolicyError(std::string(error.what()) + ": from file " + path.string());
  }
}

RequestAuditConfig evaluate(const Policy& policy, const authorization::Attributes& attributes) {
  for (const auto& rule : policy.rules) {
    if (!matches(rule, attributes)) continue;
    return {rule.level, union_of(policy.omit_stages, rule.omit_stages),
            rule.omit_managed_fields.value_or(policy.omit_managed_fields)};
  }
  return {Level::None, policy.omit_stages, false};
}

}  // namespace kapi::audit
