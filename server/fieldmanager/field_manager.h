#pragma once
// Server-side apply and managedFields on every write, as kube-apiserver's field manager does them
// (k8s.io/apimachinery/pkg/util/managedfields: FieldManager and its chain — version check, last-applied updater and
// manager (client-side → server-side apply migration), skip-non-applied, cap managers ("ancient-changes"),
// build manager info, managedFields updater (times), strip meta, structured merge).
//
// One FieldManager per resource, version and subresource, made at install; const and thread-safe. Objects are
// JSON objects at `Options::api_version`, with apiVersion and kind set.
#include "base/log.h"
#include "server/structured_merge/fieldpath.h"
#include "server/structured_merge/schema.h"
#include "server/structured_merge/update.h"

#include <boost/json/object.hpp>

#include <chrono>
#include <functional>
#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <string_view>

namespace kapi::fieldmanager {

class FieldManager {
 public:
  struct Options {
    std::shared_ptr<const structured_merge::Schema> schema;
    // The object's type at each apiVersion a manager may have used ("apps/v1"); the request's must be present.
    std::map<std::string, structured_merge::TypeRef> types;
    std::string api_version;  // the version the objects given to this manager are at
    std::string kind;
    std::string subresource;  // "", "status" or "scale"
    // Fields the resource resets at this subresource, by apiVersion (kube's ResetFieldsStrategy): ownership of
    // them is not tracked here.
    std::map<std::string, structured_merge::Set> reset_fields;
    // Converts objects between `types`' versions; nullptr when there is only one.
    std::shared_ptr<const structured_merge::Converter> converter;
    // kube's ObjectCreater.New(kind): the kind's zero object as kube serializes it (what schema::Transcoder::to_json
    // makes of an empty message: {"metadata":{"creationTimestamp":null},"spec":{...},"status":{}} for a Deployment;
    // {} for a custom resource). It is the live object of a create and what "before-first-apply" is diffed against,
    // so its zero members (status: {}, creationTimestamp: null) are owned by nobody, as in kube. apiVersion and kind
    // are set on it here.
    boost::json::object new_object = {};
    // kube's ObjectDefaulter, run on the object an apply merged (kube defaults it: it is never decoded); nullptr: none.
    std::function<void(boost::json::object&)> defaulter = nullptr;
    // The time entries record; nullptr: the system clock.
    std::function<std::chrono::system_clock::time_point()> clock = nullptr;
    // Where update's "[SHOULD NOT HAPPEN] failed to update managedFields" goes (at most once a second, as kube logs
    // it); nullptr: nowhere.
    base::Logger* logger = nullptr;
  };
  explicit FieldManager(Options options);
  ~FieldManager();

  // UpdateNoErrors: records `manager`'s Update of `live` (nullptr on create) into `updated`'s managedFields and
  // returns it. Never fails: when the managedFields cannot be computed they are reset as kube resets them.
  boost::json::object update(const boost::json::object* live, boost::json::object updated,
                             const std::string& manager) const;

  // Apply: `config` (the applied configuration, decoded from YAML/JSON) applied by `manager` to `live`, or to a new
  // object when live is nullptr (create through apply). Returns the object to store. Throws apierrors::ApiError:
  // 409 Conflict with kube's message and causes unless `force`; 400 for a config of another kind or version
  // ("invalid object type: apps/v1, Kind=Deployment") or with managedFields; 500 with no reason, as kube 1.32 answers,
  // for a configuration that does not fit the type ("failed to create typed patch object (ns/name; /v1,
  // Kind=ConfigMap): .foo: field not declared in schema").
  boost::json::object apply(const boost::json::object* live, const boost::json::object& config,
                            const std::string& manager, bool force) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// validation.FieldManagerMaxLength: the most bytes a manager name may have.
inline constexpr std::size_t kFieldManagerMaxLength = 128;

// The manager of a write: ?fieldManager= when given, else the User-Agent up to its first "/" (managerOrUserAgent).
std::string manager_or_user_agent(std::string_view field_manager, std::string_view user_agent);

}  // namespace kapi::fieldmanager
