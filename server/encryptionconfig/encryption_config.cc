#include "server/encryptionconfig/encryption_config.h"

#include "base/base64.h"
#include "server/schema/yaml_to_json.h"
#include "server/validation/field_error.h"

#include <boost/json.hpp>

#include <fstream>
#include <map>
#include <sstream>
#include <utility>
#include <vector>

namespace kapi::encryptionconfig {
namespace {

namespace json = boost::json;
namespace value = storage::value;
using validation::ErrorList;
using validation::Path;

// One provider kind with keys: its prefix, its key sizes, the cipher each key makes.
struct KeyedProvider {
  std::string_view name;  // the field: "aescbc"
  std::string_view prefix;
  std::vector<std::size_t> key_sizes;
  std::shared_ptr<const value::Transformer> (*cipher)(std::string key);
  std::string_view no_matching_key;  // the error when no key reads a value
};

const std::vector<KeyedProvider>& keyed_providers() {
  static const std::vector<KeyedProvider> providers{
      {"aescbc", "k8s:enc:aescbc:v1:", {16, 24, 32}, value::aes_cbc_transformer,
       "no matching key was found for the provided AES transformer"},
      {"aesgcm", "k8s:enc:aesgcm:v1:", {16, 24, 32}, value::aes_gcm_transformer,
       "no matching key was found for the provided AES transformer"},
      {"secretbox", "k8s:enc:secretbox:v1:", {32}, value::secretbox_transformer,
       "no matching key was found for the provided Secretbox transformer"},
  };
  return providers;
}

std::string string_at(const json::object& object, std::string_view key) {
  const json::value* found = object.if_contains(key);
  return found && found->is_string() ? std::string(found->as_string()) : std::string();
}

std::string sizes_text(const std::vector<std::size_t>& sizes) {  // Go's %v of an []int
  std::string text = "[";
  for (std::size_t i = 0; i < sizes.size(); ++i) text += (i ? " " : "") + std::to_string(sizes[i]);
  return text + "]";
}

// validateKey, and the key's transformer behind its "<name>:" prefix when it is valid.
void add_key(const json::value& key, const Path& path, const KeyedProvider& provider, ErrorList& errors,
             std::vector<value::PrefixTransformer>& keys) {
  const json::object empty;
  const json::object& fields = key.is_object() ? key.as_object() : empty;
  const std::string name = string_at(fields, "name");
  const std::string secret = string_at(fields, "secret");
  if (name.empty()) errors.push_back(validation::required(path.child("name"), "name is a mandatory field for a key"));
  if (secret.empty()) {
    errors.push_back(validation::required(path.child("secret"), "secret is a mandatory field for a key"));
    return;
  }
  std::optional<std::string> bytes = base::base64_decode(secret);
  if (!bytes) {
    errors.push_back(validation::invalid(path.child("secret"), "REDACTED", "secrets must be base64 encoded"));
    return;
  }
  if (std::find(provider.key_sizes.begin(), provider.key_sizes.end(), bytes->size()) == provider.key_sizes.end()) {
    errors.push_back(validation::invalid(path.child("secret"), "REDACTED",
                                         "secret is not of the expected length, got " + std::to_string(bytes->size()) +
                                             ", expected one of " + sizes_text(provider.key_sizes)));
    return;
  }
  if (!name.empty()) keys.push_back({name + ":", provider.cipher(std::move(*bytes))});
}

// One entry of `providers`: its prefixed transformer, or none after an error.
std::optional<value::PrefixTransformer> provider_of(const json::value& entry, const Path& path, ErrorList& errors) {
  const json::object empty;
  const json::object& fields = entry.is_object() ? entry.as_object() : empty;
  std::vector<std::string_view> kinds;
  for (const auto& [name, config] : fields)
    if (!config.is_null()) kinds.push_back(name);
  if (kinds.empty()) {
    errors.push_back(validation::invalid_value(path, "config.ProviderConfiguration{}",
                                               "provider does not contain any of the expected providers: KMS, "
                                               "AESGCM, AESCBC, Secretbox, Identity"));
    return std::nullopt;
  }
  if (kinds.size() > 1) {
    errors.push_back(validation::invalid_value(
        path, "config.ProviderConfiguration{...}",
        "more than one provider specified in a single element, should split into different list elements"));
    return std::nullopt;
  }
  const std::string_view kind = kinds.front();
  if (kind == "identity") return value::PrefixTransformer{"", value::identity_transformer()};
  if (kind == "kms") {
    errors.push_back(validation::forbidden(path.child("kms"), "kms providers are not supported by kapi"));
    return std::nullopt;
  }
  for (const KeyedProvider& provider : keyed_providers()) {
    if (kind != provider.name) continue;
    const Path keys_path = path.child(provider.name).child("keys");
    const json::value* keys = fields.at(kind).is_object() ? fields.at(kind).as_object().if_contains("keys") : nullptr;
    if (!keys || !keys->is_array() || keys->as_array().empty()) {
      errors.push_back(validation::required(keys_path, "at least one keys is required"));
      return std::nullopt;
    }
    std::vector<value::PrefixTransformer> transformers;
    const std::size_t before = errors.size();
    for (std::size_t i = 0; i < keys->as_array().size(); ++i)
      add_key(keys->as_array()[i], keys_path.index(i), provider, errors, transformers);
    if (errors.size() != before) return std::nullopt;
    return value::PrefixTransformer{
        std::string(provider.prefix),
        value::prefix_transformers(std::move(transformers), std::string(provider.no_matching_key))};
  }
  errors.push_back(validation::invalid_value(path, "config.ProviderConfiguration{}",
                                             "provider does not contain any of the expected providers: KMS, AESGCM, "
                                             "AESCBC, Secretbox, Identity"));
  return std::nullopt;
}

// schema.ParseGroupResource: "deployments.apps" → {apps, deployments}; "secrets" → {"", secrets}.
std::pair<std::string, std::string> group_resource(std::string_view text) {
  const std::size_t dot = text.find('.');
  if (dot == std::string_view::npos) return {"", std::string(text)};
  return {std::string(text.substr(dot + 1)), std::string(text.substr(0, dot))};
}

std::string rule_text(const std::pair<std::string, std::string>& gr) {  // grYAMLString
  if (gr.first.empty()) return gr.second == "*" ? "*." : gr.second;
  return gr.second + "." + gr.first;
}

std::string aggregate(const ErrorList& errors) {  // field.ErrorList.ToAggregate().Error()
  if (errors.size() == 1) return errors.front().text();
  std::string text = "[";
  for (std::size_t i = 0; i < errors.size(); ++i) text += (i ? ", " : "") + errors[i].text();
  return text + "]";
}

}  // namespace

value::ResourceTransformers parse_encryption_config(std::string_view text, std::string_view file) {
  const std::string named = "\"" + std::string(file) + "\"";
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos)
    throw ConfigError("encryption provider configuration file " + named + " is empty");
  json::value document;
  try {
    document = schema::yaml_to_json(text).value;
  } catch (const schema::YamlError& error) {
    throw ConfigError("error decoding encryption provider configuration file " + named + ": " + error.what());
  }
  const json::object empty;
  const json::object& config = document.is_object() ? document.as_object() : empty;
  const std::string api_version = string_at(config, "apiVersion");
  const std::string kind = string_at(config, "kind");
  if (api_version != "apiserver.config.k8s.io/v1" || kind != "EncryptionConfiguration")
    throw ConfigError("error decoding encryption provider configuration file " + named +
                      ": no kind \"" + kind + "\" is registered for version \"" + api_version + "\"");

  ErrorList errors;
  const Path root("resources");
  const json::value* resources = config.if_contains("resources");
  if (!resources || !resources->is_array() || resources->as_array().empty())
    errors.push_back(validation::required(root, "at least one resources is required"));
  // Per group resource, the providers of every entry naming it, in order ("*" stands for any).
  std::map<std::pair<std::string, std::string>, std::vector<value::PrefixTransformer>> by_resource;
  std::string masked;
  const json::array no_entries;
  const json::array& entries = resources && resources->is_array() ? resources->as_array() : no_entries;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const json::object& entry = entries[i].is_object() ? entries[i].as_object() : empty;
    const Path names_path = root.index(i).child("resources");
    const Path providers_path = root.index(i).child("providers");
    const json::value* names = entry.if_contains("resources");
    const json::value* providers = entry.if_contains("providers");
    if (!names || !names->is_array() || names->as_array().empty())
      errors.push_back(validation::required(names_path, "at least one " + names_path.str() + " is required"));
    if (!providers || !providers->is_array() || providers->as_array().empty()) {
      errors.push_back(validation::required(providers_path, "at least one " + providers_path.str() + " is required"));
      continue;
    }
    std::vector<value::PrefixTransformer> transformers;
    for (std::size_t j = 0; j < providers->as_array().size(); ++j)
      if (auto provider = provider_of(providers->as_array()[j], providers_path.index(j), errors))
        transformers.push_back(std::move(*provider));
    if (!names || !names->is_array()) continue;
    for (const json::value& name : names->as_array()) {
      if (!name.is_string()) continue;
      const auto gr = group_resource(name.as_string());
      for (const auto& rule : {std::pair<std::string, std::string>{gr.first, "*"}, {"*", "*"}})
        if (rule != gr && by_resource.contains(rule) && masked.empty())
          masked = "resource \"" + rule_text(gr) + "\" is masked by earlier rule \"" + rule_text(rule) + "\"";
      auto& list = by_resource[gr];
      list.insert(list.end(), transformers.begin(), transformers.end());
    }
  }
  if (!errors.empty())
    throw ConfigError("error while parsing encryption provider configuration file " + named +
                      ": error while parsing file: " + aggregate(errors));
  if (!masked.empty())
    throw ConfigError("error while parsing encryption provider configuration file " + named + ": " + masked);

  std::map<std::pair<std::string, std::string>, std::shared_ptr<const value::Transformer>> transformers;
  for (auto& [gr, list] : by_resource)
    if (!list.empty()) transformers.emplace(gr, value::prefix_transformers(std::move(list)));
  // transformerFromOverrides: the resource's own, its group's, every group's.
  return [transformers = std::move(transformers)](std::string_view group, std::string_view resource)
             -> std::shared_ptr<const value::Transformer> {
    for (const auto& key : {std::pair<std::string, std::string>{std::string(group), std::string(resource)},
                            std::pair<std::string, std::string>{std::string(group), "*"},
                            std::pair<std::string, std::string>{"*", "*"}})
      if (auto found = transformers.find(key); found != transformers.end()) return found->second;
    return nullptr;
  };
}

value::ResourceTransformers load_encryption_config(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in)
    throw ConfigError("error opening encryption provider configuration file \"" + file.string() +
                      "\": open " + file.string() + ": no such file or directory");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_encryption_config(text.str(), file.string());
}

}  // namespace kapi::encryptionconfig
