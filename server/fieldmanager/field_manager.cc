// kube's FieldManager (internal/fieldmanager.go) over the default chain (NewDefaultFieldManager), and the manager
// name of a request (handlers/rest.go).
#include "server/fieldmanager/field_manager.h"

#include "base/go_quote.h"
#include "base/utf8.h"
#include "server/fieldmanager/managed_fields.h"
#include "server/fieldmanager/manager.h"
#include "server/registry/json_fields.h"

#include <atomic>
#include <stdexcept>
#include <utility>

namespace kapi::fieldmanager {
namespace internal {
namespace {

namespace json = boost::json;
namespace sm = structured_merge;

const json::object* metadata_of(const json::object& object) {
  const auto* metadata = object.if_contains("metadata");
  return metadata && metadata->is_object() ? &metadata->get_object() : nullptr;
}

Managed decode_or_empty(const json::object& object) {
  try {
    return decode_managed_fields(object);
  } catch (const std::exception&) {
    return {};
  }
}

// isResetManagedFields: an empty list, or a list of one empty entry, asks for the managers to be forgotten.
bool is_reset_managed_fields(const json::array* entries) {
  if (!entries) return false;
  if (entries->empty()) return true;
  if (entries->size() != 1 || !entries->front().is_object()) return false;
  // reflect.DeepEqual with ManagedFieldsEntry{} after decoding: empty strings, no time, no fieldsV1 (members the
  // type does not have are dropped by decoding).
  for (const auto& [name, value] : entries->front().get_object()) {
    if (value.is_null()) continue;
    if (name == "time" || name == "fieldsV1") return false;
    const bool string_member = name == "manager" || name == "operation" || name == "apiVersion" ||
                               name == "fieldsType" || name == "subresource";
    if (string_member && !(value.is_string() && value.get_string().empty())) return false;
  }
  return true;
}

// decodeLiveOrNew: the managers an update starts from — the request's own (clients may edit them), unless it is a
// subresource's, or sent none (clients that do not know managedFields would drop them), or sent an unreadable list.
Managed decode_live_or_new(const json::object& live, const json::object& updated, bool ignore_request_managed_fields) {
  if (ignore_request_managed_fields) return decode_or_empty(live);
  if (is_reset_managed_fields(managed_fields_of(updated))) return {};
  try {
    Managed managed = decode_managed_fields(updated);
    if (!managed.fields.empty()) return managed;
  } catch (const std::exception&) {
  }
  return decode_or_empty(live);
}

apierrors::Status unknown_error(std::string message) {
  // What ErrorToAPIStatus makes of an error that is not a Status: 500, reason Unknown.
  return {500, "", std::move(message), std::nullopt};
}

}  // namespace

void remove_managed_fields(json::object& object) {
  if (auto* metadata = object.if_contains("metadata"); metadata && metadata->is_object()) {
    metadata->get_object().erase("managedFields");
  }
}

std::string group_version_kind(const json::object& object) {
  std::string version = std::string(registry::fields::string_at(object, "apiVersion"));
  std::string group;
  if (version == "/") {
    version.clear();
  } else if (auto slash = version.find('/'); slash != std::string::npos) {
    if (version.find('/', slash + 1) != std::string::npos) return "/, Kind=";
    group = version.substr(0, slash);
    version = version.substr(slash + 1);
  }
  return group + "/" + version + ", Kind=" + std::string(registry::fields::string_at(object, "kind"));
}

std::string object_gvknn(const json::object& object) {
  std::string name, namespace_name;
  if (const json::object* metadata = metadata_of(object)) {
    name = std::string(registry::fields::string_at(*metadata, "name"));
    namespace_name = std::string(registry::fields::string_at(*metadata, "namespace"));
  }
  return namespace_name + "/" + name + "; " + group_version_kind(object);
}

const json::object* metadata_map(const json::object& object, std::string_view name) {
  const json::object* metadata = metadata_of(object);
  if (!metadata) return nullptr;
  const auto* map = metadata->if_contains(name);
  if (!map || !map->is_object()) return nullptr;
  for (const auto& [key, value] : map->get_object()) {
    if (!value.is_string()) return nullptr;
  }
  return &map->get_object();
}

void ChainFieldManager::update(const json::object& live, json::object& updated, const std::string& manager) const {
  Managed managed = decode_live_or_new(live, updated, !subresource_.empty());
  remove_managed_fields(updated);
  managed = chain_->update(live, updated, std::move(managed), manager);
  set_managed_fields(updated, managed);
}

json::object ChainFieldManager::apply(const json::object& live, const json::object& config, const std::string& manager,
                                      bool force) const {
  Managed managed;
  try {
    managed = decode_managed_fields(live);
  } catch (const std::exception& error) {
    throw apierrors::ApiError(unknown_error(error.what()));
  }
  Applied applied;
  try {
    applied = chain_->apply(live, config, std::move(managed), manager, force);
  } catch (const sm::Conflicts& conflicts) {
    throw apierrors::ApiError(conflict_error(conflicts.conflicts()));
  } catch (const apierrors::ApiError&) {
    throw;
  } catch (const std::exception& error) {
    throw apierrors::ApiError(unknown_error(error.what()));
  }
  json::object object;
  if (applied.object) {
    object = std::move(*applied.object);
  } else {
    object = live;
    remove_managed_fields(object);
  }
  try {
    set_managed_fields(object, applied.managed);
  } catch (const std::exception& error) {
    throw apierrors::ApiError(unknown_error(std::string("failed to encode managed fields: ") + error.what()));
  }
  return object;
}

}  // namespace internal

namespace {

// AtMostEvery(time.Second): what kube logs at most once a second.
class AtMostEverySecond {
 public:
  bool allow() {
    const auto now = std::chrono::steady_clock::now().time_since_epoch().count();
    auto last = last_.load();
    const auto period = std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::seconds(1)).count();
    if (last != kNever && now - last < period) return false;
    return last_.compare_exchange_strong(last, now);
  }

 private:
  static constexpr std::int64_t kNever = INT64_MIN;
  std::atomic<std::int64_t> last_{kNever};
};

}  // namespace

struct FieldManager::Impl {
  Impl(internal::ChainFieldManager chain, boost::json::object new_object, base::Logger* logger)
      : chain(std::move(chain)), new_object(std::move(new_object)), logger(logger) {}
  internal::ChainFieldManager chain;
  boost::json::object new_object;
  base::Logger* logger;
  mutable AtMostEverySecond log_limit;
};

FieldManager::FieldManager(Options options) {
  if (!options.schema) throw std::invalid_argument("typeconverter must not be nil");
  auto type = options.types.find(options.api_version);
  if (type == options.types.end() || !type->second) {
    throw std::invalid_argument("no type for " + options.api_version + ", Kind=" + options.kind);
  }
  internal::KindType kind_type{options.schema, type->second, options.api_version, options.kind};
  boost::json::object new_object = std::move(options.new_object);
  new_object["apiVersion"] = options.api_version;
  new_object["kind"] = options.kind;

  using namespace internal;
  ManagerPtr chain = structured_merge_manager(
      {kind_type, std::move(options.converter), std::move(options.reset_fields), std::move(options.defaulter)});
  chain = strip_meta_manager(std::move(chain));
  chain = managed_fields_updater(std::move(chain), std::move(options.clock));
  chain = build_manager_info_manager(std::move(chain), options.api_version, options.subresource);
  chain = cap_managers_manager(std::move(chain), kDefaultMaxUpdateManagers);
  chain = skip_non_applied_manager(std::move(chain), new_object, /*track_on_create=*/true);
  chain = last_applied_manager(std::move(chain), kind_type);
  chain = last_applied_updater(std::move(chain));
  chain = version_check_manager(std::move(chain), options.api_version, options.kind);
  impl_ = std::make_unique<Impl>(ChainFieldManager(std::move(chain), options.subresource), std::move(new_object),
                                 options.logger);
}

FieldManager::~FieldManager() = default;

boost::json::object FieldManager::update(const boost::json::object* live, boost::json::object updated,
                                         const std::string& manager) const {
  const boost::json::object& live_object = live ? *live : impl_->new_object;
  try {
    impl_->chain.update(live_object, updated, manager);
  } catch (const std::exception& error) {
    // UpdateNoErrors: the write goes on without managers rather than with wrong ones.
    if (impl_->logger && impl_->log_limit.allow()) {
      std::string name, namespace_name;
      if (const auto* metadata = updated.if_contains("metadata"); metadata && metadata->is_object()) {
        if (const auto* value = metadata->get_object().if_contains("name"); value && value->is_string()) name = value->get_string();
        if (const auto* value = metadata->get_object().if_contains("namespace"); value && value->is_string()) {
          namespace_name = value->get_string();
        }
      }
      impl_->logger->error("\"[SHOULD NOT HAPPEN] failed to update managedFields\" err=" + base::go_quote(error.what()) +
                           " versionKind=" + base::go_quote(internal::group_version_kind(updated)) +
                           " namespace=" + base::go_quote(namespace_name) + " name=" + base::go_quote(name));
    }
    internal::remove_managed_fields(updated);
  }
  return updated;
}

boost::json::object FieldManager::apply(const boost::json::object* live, const boost::json::object& config,
                                        const std::string& manager, bool force) const {
  return impl_->chain.apply(live ? *live : impl_->new_object, config, manager, force);
}

// prefixFromUserAgent: the User-Agent up to its first "/", printable runes only, at most 128 bytes
// (FieldManagerMaxLength).
std::string manager_or_user_agent(std::string_view field_manager, std::string_view user_agent) {
  if (!field_manager.empty()) return std::string(field_manager);
  std::string_view prefix = user_agent.substr(0, user_agent.find('/'));
  std::string manager;
  while (!prefix.empty()) {
    base::Rune rune = base::decode_rune(prefix);
    prefix.remove_prefix(rune.width);
    if (!base::go_is_print(rune.value)) continue;
    std::string encoded;
    base::append_utf8(encoded, rune.value);
    if (manager.size() + encoded.size() > kFieldManagerMaxLength) break;
    manager += encoded;
  }
  return manager;
}

}  // namespace kapi::fieldmanager
