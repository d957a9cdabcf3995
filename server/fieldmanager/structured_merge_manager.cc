// kube's structuredMergeManager (internal/structuredmerge.go): the innermost stage, where objects become typed values
// and smd's Updater computes the managers.
#include "server/fieldmanager/manager.h"

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace kapi::fieldmanager::internal {
namespace {

namespace json = boost::json;
namespace sm = structured_merge;

std::string api_version_of(const json::object& object) {
  const auto* version = object.if_contains("apiVersion");
  return version && version->is_string() ? std::string(version->get_string()) : std::string();
}

// schema.ParseGroupVersion then GroupVersion.String(): "" for an apiVersion that does not parse.
std::string group_version(const json::object& object) {
  std::string version = api_version_of(object);
  if (version == "/") return "";
  const auto slashes = std::count(version.begin(), version.end(), '/');
  if (slashes > 1) return "";
  if (slashes == 1 && version.front() == '/') return version.substr(1);  // an empty group
  return version;
}

// kube's versionConverter: an object already at the version is returned as is; other versions go to the
// resource's converter, and with none, they are not served (their managers are dropped).
class VersionConverter final : public sm::Converter {
 public:
  explicit VersionConverter(std::shared_ptr<const sm::Converter> inner) : inner_(std::move(inner)) {}

  sm::TypedValue convert(const sm::TypedValue& object, const std::string& api_version) const override {
    if (is_at(object, api_version)) return object;
    if (inner_) return inner_->convert(object, api_version);
    throw MissingVersion("no kind is registered for the version \"" + api_version + "\"");
  }
  bool is_at(const sm::TypedValue& object, const std::string& api_version) const override {
    return object.value.is_object() && group_version(object.value.get_object()) == api_version;
  }

 private:
  std::shared_ptr<const sm::Converter> inner_;
};

class StructuredMergeManager final : public Manager {
 public:
  explicit StructuredMergeManager(StructuredMergeOptions options)
      : type_(std::move(options.type)),
        converter_(std::move(options.converter)),
        updater_(converter_, sm::UpdaterOptions{std::move(options.reset_fields), false}),
        defaulter_(std::move(options.defaulter)) {}

  Managed update(const json::object& live, json::object& updated, Managed managed,
                 const std::string& manager) const override {
    // The write's object is borrowed, not copied: moved into the typed value, and back whatever happens.
    json::value borrowed(std::move(updated));
    struct GiveBack {
      json::value& borrowed;
      json::object& owner;
      ~GiveBack() { owner = std::move(borrowed.get_object()); }
    };
    sm::TypedValue new_typed;
    try {
      new_typed = type_.to_typed(std::move(borrowed), true);
    } catch (const std::exception& error) {
      updated = std::move(borrowed.get_object());
      throw std::runtime_error("failed to convert new object (" + object_gvknn(updated) + ") to smd typed: " +
                               error.what());
    }
    GiveBack give_back{new_typed.value, updated};
    sm::TypedValue live_typed;
    try {
      live_typed = type_.to_typed(live, true);
    } catch (const std::exception& error) {
      throw std::runtime_error("failed to convert live object (" + object_gvknn(live) + ") to smd typed: " +
                               error.what());
    }
    try {
      managed.fields = updater_.update(live_typed, new_typed, type_.api_version, std::move(managed.fields), manager);
    } catch (const std::exception& error) {
      throw std::runtime_error("failed to update ManagedFields (" + object_gvknn(new_typed.value.get_object()) +
                               "): " + error.what());
    }
    return managed;
  }

  Applied apply(const json::object& live, const json::object& config, Managed managed, const std::string& manager,
                bool force) const override {
    if (std::string version = group_version(config); version != type_.api_version) {
      throw apierrors::ApiError(apierrors::bad_request("Incorrect version specified in apply patch. Specified patch version: " +
                                                       version + ", expected: " + type_.api_version));
    }
    if (const auto* metadata = config.if_contains("metadata"); metadata && metadata->is_object()) {
      // Unstructured's GetManagedFields: any list, even an empty one, is not nil.
      if (const auto* fields = metadata->get_object().if_contains("managedFields"); fields && fields->is_array()) {
        throw apierrors::ApiError(apierrors::bad_request("metadata.managedFields must be nil"));
      }
    }
    // Duplicates are refused in what is applied, tolerated in what is stored (it may predate the rule).
    sm::TypedValue config_typed;
    try {
      config_typed = type_.to_typed(config, false);
    } catch (const sm::TypedError& error) {
      throw std::runtime_error("failed to create typed patch object (" + object_gvknn(config) + "): " + error.what());
    }
    sm::TypedValue live_typed;
    try {
      live_typed = type_.to_typed(live, true);
    } catch (const sm::TypedError& error) {
      throw std::runtime_error("failed to create typed live object (" + object_gvknn(live) + "): " + error.what());
    }
    auto [merged, fields] =
        updater_.apply(live_typed, config_typed, type_.api_version, std::move(managed.fields), manager, force);
    managed.fields = std::move(fields);
    if (!merged) return {std::nullopt, std::move(managed)};
    if (!merged->value.is_object()) {
      throw std::runtime_error("failed to convert new typed object (" + object_gvknn(config) + ") to object");
    }
    json::object object = std::move(merged->value.get_object());
    if (defaulter_) defaulter_(object);
    return {std::move(object), std::move(managed)};
  }

 private:
  KindType type_;
  VersionConverter converter_;
  sm::Updater updater_;
  std::function<void(json::object&)> defaulter_;
};

}  // namespace

sm::TypedValue KindType::to_typed(json::value&& object, bool allow_duplicates) const {
  return sm::as_typed(std::move(object), *schema, type, allow_duplicates);
}

ManagerPtr structured_merge_manager(StructuredMergeOptions options) {
  if (!options.type.schema || !options.type.type) throw std::invalid_argument("typeconverter must not be nil");
  return std::make_unique<StructuredMergeManager>(std::move(options));
}

}  // namespace kapi::fieldmanager::internal
