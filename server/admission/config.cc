#include "server/admission/config.h"

#include "server/schema/yaml_to_json.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace kapi::admission {
namespace {

namespace json = boost::json;

std::string read_file(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw std::runtime_error("unable to read admission control configuration from \"" + file.string() + "\"");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

json::value parse(const std::filesystem::path& file) {
  try {
    return schema::yaml_to_json(read_file(file)).value;
  } catch (const schema::YamlError& error) {
    throw std::runtime_error("unable to read admission control configuration from \"" + file.string() +
                             "\": " + error.what());
  }
}

}  // namespace

std::map<std::string, json::value> read_admission_configuration(const std::string& file) {
  std::map<std::string, json::value> configurations;
  if (file.empty()) return configurations;
  const std::filesystem::path path(file);
  const json::value document = parse(path);
  const json::object* root = document.if_object();
  const json::value* kind = root ? root->if_contains("kind") : nullptr;
  if (!kind || !kind->is_string() || kind->as_string() != "AdmissionConfiguration")
    throw std::runtime_error("unable to read admission control configuration from \"" + file +
                             "\": not an AdmissionConfiguration");
  const json::value* plugins = root->if_contains("plugins");
  if (!plugins || plugins->is_null()) return configurations;
  if (!plugins->is_array()) throw std::runtime_error("admission configuration \"" + file + "\": plugins is not a list");
  for (const json::value& entry : plugins->as_array()) {
    const json::object* plugin = entry.if_object();
    const json::value* name = plugin ? plugin->if_contains("name") : nullptr;
    if (!name || !name->is_string() || name->as_string().empty())
      throw std::runtime_error("admission configuration \"" + file + "\": a plugin entry has no name");
    if (const json::value* inline_configuration = plugin->if_contains("configuration");
        inline_configuration && !inline_configuration->is_null()) {
      configurations[std::string(name->as_string())] = *inline_configuration;
    } else if (const json::value* plugin_path = plugin->if_contains("path");
               plugin_path && plugin_path->is_string() && !plugin_path->as_string().empty()) {
      std::filesystem::path target(std::string(plugin_path->as_string()));
      if (target.is_relative()) target = path.parent_path() / target;
      configurations[std::string(name->as_string())] = parse(target);
    }
  }
  return configurations;
}

}  // namespace kapi::admission
