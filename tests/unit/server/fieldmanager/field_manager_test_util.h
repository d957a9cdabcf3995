#pragma once
// Shared by the field manager tests: objects from YAML or JSON, the catalog's types, a clock the tests move, and
// kube's TestFieldManager (internal/testing/testfieldmanager.go): a live object that applies and updates go to.
#include "server/apierrors/errors.h"
#include "server/fieldmanager/managed_fields.h"
#include "server/fieldmanager/manager.h"
#include "server/fieldmanager/type_converter.h"
#include "server/schema/catalog.h"
#include "server/schema/transcoder.h"
#include "server/schema/yaml_to_json.h"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace kapi::fieldmanager::testing {

namespace json = boost::json;

inline json::object object_from_json(std::string_view text) { return json::parse(text).as_object(); }
inline json::object object_from_yaml(std::string_view text) {
  return schema::yaml_to_json(text).value.as_object();
}

// The built-in kinds' types, made once for every test.
struct Types {
  schema::Catalog catalog = schema::Catalog::builtin();
  std::shared_ptr<const structured_merge::Schema> schema = schema_from_catalog(catalog);

  static const Types& get() {
    static const Types types;
    return types;
  }
  static std::pair<std::string, std::string> split(std::string_view api_version) {
    auto slash = api_version.find('/');
    if (slash == std::string_view::npos) return {"", std::string(api_version)};
    return {std::string(api_version.substr(0, slash)), std::string(api_version.substr(slash + 1))};
  }
  internal::KindType kind_type(std::string_view api_version, std::string_view kind) const {
    auto [group, version] = split(api_version);
    return {schema, fieldmanager::kind_type(*schema, catalog, group, version, kind), std::string(api_version),
            std::string(kind)};
  }
  // The kind's zero object as kube serializes it (ObjectCreater.New).
  json::object zero_object(std::string_view api_version, std::string_view kind) const {
    schema::Transcoder transcoder(catalog);
    return transcoder.to_json(*transcoder.message_for(api_version, kind), "").as_object();
  }
};

// A clock the test moves; starts at 2026-12-01T21:00:00Z.
class FakeClock {
 public:
  std::chrono::system_clock::time_point now() const { return *time_; }
  void advance(std::chrono::seconds seconds) { *time_ += seconds; }
  internal::Clock clock() const {
    return [time = time_] { return *time; };
  }

 private:
  std::shared_ptr<std::chrono::system_clock::time_point> time_ =
      std::make_shared<std::chrono::system_clock::time_point>(std::chrono::seconds(1796158800));
};

// kube's test converter (sameVersionConverter): every version is the object as it is.
class SameVersionConverter final : public structured_merge::Converter {
 public:
  structured_merge::TypedValue convert(const structured_merge::TypedValue& object, const std::string&) const override {
    return object;
  }
};

// kube's TestFieldManagerImpl: the default chain without the version check and the cap on managers (tested on
// their own), optionally wrapped in more stages.
class TestFieldManager {
 public:
  using Wrap = std::function<internal::ManagerPtr(internal::ManagerPtr)>;

  TestFieldManager(std::string api_version, std::string kind, std::string subresource = "", Wrap wrap = nullptr)
      : api_version_(std::move(api_version)), kind_(std::move(kind)) {
    internal::KindType type = Types::get().kind_type(api_version_, kind_);
    internal::ManagerPtr chain = internal::structured_merge_manager(
        {type, std::make_shared<SameVersionConverter>(), {}, nullptr});
    chain = internal::strip_meta_manager(std::move(chain));
    chain = internal::managed_fields_updater(std::move(chain), clock_.clock());
    chain = internal::build_manager_info_manager(std::move(chain), api_version_, subresource);
    chain = internal::skip_non_applied_manager(std::move(chain), empty(), true);
    chain = internal::last_applied_manager(std::move(chain), type);
    chain = internal::last_applied_updater(std::move(chain));
    if (wrap) chain = wrap(std::move(chain));
    manager_ = std::make_unique<internal::ChainFieldManager>(std::move(chain), subresource);
    live_ = empty();
  }

  const std::string& api_version() const { return api_version_; }
  FakeClock& clock() { return clock_; }
  void reset() { live_ = empty(); }
  const json::object& live() const { return live_; }
  void set_live(json::object live) { live_ = std::move(live); }

  // Throws apierrors::ApiError.
  void apply(const json::object& config, const std::string& manager, bool force) {
    live_ = manager_->apply(live_, config, manager, force);
  }
  // Throws what the chain throws.
  void update(json::object object, const std::string& manager) {
    manager_->update(live_, object, manager);
    live_ = std::move(object);
  }
  json::array managed_fields() const {
    const json::array* entries = managed_fields_of(live_);
    return entries ? *entries : json::array();
  }

 private:
  json::object empty() const { return {{"apiVersion", api_version_}, {"kind", kind_}}; }

  std::string api_version_;
  std::string kind_;
  FakeClock clock_;
  std::unique_ptr<internal::ChainFieldManager> manager_;
  json::object live_;
};

// The ApiError `run` throws; a test failure (and nullopt) when it throws none.
template <class Run>
std::optional<apierrors::Status> api_error(Run&& run) {
  try {
    run();
  } catch (const apierrors::ApiError& error) {
    return error.status();
  }
  ADD_FAILURE() << "expected an ApiError";
  return std::nullopt;
}

}  // namespace kapi::fieldmanager::testing
