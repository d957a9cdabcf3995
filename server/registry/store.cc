#include "server/registry/store.h"

#include "base/uuid.h"
#include "server/registry/object_meta.h"
#include "server/registry/storage_errors.h"
#include "server/validation/object_meta.h"

#include <boost/json.hpp>

#include <exception>
#include <utility>

namespace kapi::registry {
namespace {

namespace json = boost::json;
using apierrors::ApiError;

constexpr int kGenerateNameAttempts = 8;

json::object parse_object(std::string_view bytes) {
  json::value value = parse_json(bytes);
  if (!value.is_object()) throw ApiError(apierrors::internal_error("stored object is not a JSON object"));
  return std::move(value.as_object());
}

// Everything but metadata and (unless it counts) status: a change here bumps metadata.generation.
bool spec_changed(const json::object& object, const json::object& old, bool status_counts) {
  auto without_meta_and_status = [status_counts](const json::object& o) {
    json::object copy = o;
    copy.erase("metadata");
    if (!status_counts) copy.erase("status");
    return copy;
  };
  return without_meta_and_status(object) != without_meta_and_status(old);
}

// managedFields entries equal but for their times.
bool same_but_times(const json::value* lhs, const json::value* rhs) {
  if (!lhs || !rhs || !lhs->is_array() || !rhs->is_array()) return false;
  const json::array& a = lhs->as_array();
  const json::array& b = rhs->as_array();
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (!a[i].is_object() || !b[i].is_object()) return a[i] == b[i];
    json::object x = a[i].as_object(), y = b[i].as_object();
    x.erase("time");
    y.erase("time");
    if (x != y) return false;
  }
  return true;
}

// IgnoreManagedFieldsTimestampsTransformer: an update that changes nothing but the times of managedFields keeps
// the stored times, so that it stays a no-op (no new resourceVersion).
void keep_times_of_a_noop(json::object& object, const json::object& old) {
  const json::object* meta = object.at("metadata").if_object();
  const json::object* old_meta = old.at("metadata").if_object();
  if (!meta || !old_meta) return;
  const json::value* entries = meta->if_contains("managedFields");
  const json::value* old_entries = old_meta->if_contains("managedFields");
  if (!entries || !old_entries || *entries == *old_entries || !same_but_times(entries, old_entries)) return;
  json::object compared = object, stored = old;
  for (json::object* o : {&compared, &stored}) {
    json::object& m = o->at("metadata").as_object();
    m.erase("managedFields");
    m.erase("resourceVersion");
  }
  if (compared == stored) metadata_of(object)["managedFields"] = *old_entries;
}

ReadObject read_object(const storage::ObjectRef& object) {
  return {with_resource_version(object->value, object->mod_revision),
          std::shared_ptr<const storage::EncodingCache>(object, &object->encodings)};
}

}  // namespace

ObjectList to_object_list(const storage::SharedListResult& shared) {
  ObjectList list;
  list.items.reserve(shared.items.size());
  for (const auto& item : shared.items) list.items.push_back(read_object(item));
  list.revision = shared.revision;
  list.continue_token = shared.continue_token;
  list.remaining_item_count = shared.remaining_item_count;
  return list;
}

namespace {

// rest.BeforeDelete's early check of DeleteOptions.preconditions against the stored object: a 409 that names the
// kind where other conflicts name the resource ("Operation cannot be fulfilled on ConfigMap ...").
void check_delete_preconditions(const ResourceDefinition& definition, const json::object& current,
                                std::string_view resource_version, const DeleteOptions& options) {
  const std::string_view name = meta_string(current, "name");
  if (options.precondition_uid && *options.precondition_uid != meta_string(current, "uid"))
    throw ApiError(apierrors::conflict(definition.group, definition.kind, name,
                                       "the UID in the precondition (" + *options.precondition_uid +
                                           ") does not match the UID in record (" +
                                           std::string(meta_string(current, "uid")) +
                                           "). The object might have been deleted and then recreated"));
  if (options.precondition_resource_version && *options.precondition_resource_version != resource_version)
    throw ApiError(apierrors::conflict(definition.group, definition.kind, name,
                                       "the ResourceVersion in the precondition (" +
                                           *options.precondition_resource_version +
                                           ") does not match the ResourceVersion in record (" +
                                           std::string(resource_version) + "). The object might have been modified"));
}

}  // namespace

Store::Store(ResourceDefinition definition, std::shared_ptr<const Strategy> strategy, storage::Interface& storage,
             std::string key_root, bool garbage_collection)
    : definition_(std::move(definition)), strategy_(std::move(strategy)), storage_(storage),
      key_root_(std::move(key_root)), garbage_collection_(garbage_collection) {
  if (definition_.storage_resource.empty()) definition_.storage_resource = definition_.resource;
}

std::string Store::key(std::string_view namespace_, std::string_view name) const {
  std::string out = prefix(namespace_, name.size());
  out.append(name);
  return out;
}

std::string Store::prefix(std::string_view namespace_, std::size_t room_after) const {
  // Built in one allocation: every request of the resource makes one.
  std::string out;
  out.reserve(key_root_.size() + definition_.storage_resource.size() + namespace_.size() + 3 + room_after);
  out.append(key_root_).append("/").append(definition_.storage_resource).append("/");
  if (definition_.namespaced && !namespace_.empty()) out.append(namespace_).append("/");
  return out;
}

std::string Store::encode_for_storage(json::object object) {
  json::object ordered;
  ordered.reserve(object.size());
  for (std::string_view first : {"kind", "apiVersion", "metadata"}) {
    if (auto it = object.find(first); it != object.end()) ordered.emplace(first, std::move(it->value()));
  }
  for (auto& [key, value] : object)
    if (!ordered.contains(key)) ordered.emplace(key, std::move(value));
  if (auto it = ordered.find("metadata"); it != ordered.end() && it->value().is_object())
    it->value().as_object().erase("resourceVersion");
  return json::serialize(ordered);
}

void Store::set_type_meta(json::object& object) const {
  object["kind"] = definition_.kind;
  object["apiVersion"] = definition_.group_version();
}

void Store::validate(const json::object& object, const json::object* old, bool with_strategy,
                     std::string_view subresource, std::vector<std::string>* warnings) const {
  validation::NameRule name_rule = strategy_->name_is_path_segment() ? validation::NameRule::PathSegment
                                   : strategy_->name_is_dns_label()   ? validation::NameRule::Dns1123Label
                                                                      : validation::NameRule::Dns1123Subdomain;
  validation::ErrorList errors = validation::validate_object_meta(object, definition_.namespaced, name_rule);
  if (with_strategy) {
    std::vector<std::string> dropped;
    auto own = !old ? strategy_->validate(object)
                    : strategy_->validate_update_with_warnings(subresource, object, *old, warnings ? *warnings : dropped);
    errors.insert(errors.end(), own.begin(), own.end());
  }
  if (!errors.empty())
    throw ApiError(apierrors::invalid(definition_.group, definition_.kind, meta_string(object, "name"), errors));
}

void Store::rethrow(const storage::StorageError& error, std::string_view name, std::string_view operation) const {
  throw ApiError(interpret_storage_error(error, definition_, name, operation));
}

// rest.BeforeCreate's part after admission: the fields the system owns, then the strategy's preparation.
void Store::prepare_created(json::object& object, const WriteOptions& options) const {
  auto& meta = metadata_of(object);
  meta["uid"] = base::new_uuid();
  meta["creationTimestamp"] = rfc3339_now();
  meta.erase("deletionTimestamp");
  meta.erase("deletionGracePeriodSeconds");
  if (strategy_->tracks_generation()) meta["generation"] = 1;
  else meta.erase("generation");
  strategy_->prepare_for_create(object);
  if (options.user) strategy_->record_requestor(object, *options.user);
}

asio::awaitable<std::string> Store::create(std::string namespace_, json::object object, WriteOptions options) {
  set_type_meta(object);
  auto& meta = metadata_of(object);
  if (definition_.namespaced) {
    std::string_view body_namespace = meta_string(object, "namespace");
    if (body_namespace.empty()) {
      meta["namespace"] = namespace_;
    } else if (body_namespace != namespace_) {
      throw ApiError(apierrors::bad_request(
          "the namespace of the provided object does not match the namespace sent on the request"));
    }
  } else {
    meta.erase("namespace");
  }
  if (!meta_string(object, "resourceVersion").empty())
    throw ApiError(apierrors::bad_request("resourceVersion should not be set on objects to be created"));
  // kube decodes (defaulting) before admission and prepares after it (rest.BeforeCreate): mutating admission sees
  // the object as sent, defaulted, and what the Store and strategy set (uid, a pod's status and QoS class, a
  // service's IPs) follows what admission changed.
  strategy_->apply_scheme_defaults(object);
  if (options.record_managed_fields) options.record_managed_fields(nullptr, object);
  if (options.admit) co_await options.admit(object, nullptr);
  const std::string generate_name(meta_string(object, "generateName"));
  prepare_created(object, options);
  Strategy::FinishWrite finish = co_await strategy_->begin_write(object, nullptr, options.dry_run);
  std::exception_ptr failure;
  std::string created;
  try {
    created = co_await store_created(namespace_, object, options, generate_name);
  } catch (...) {
    failure = std::current_exception();
  }
  if (finish) co_await finish(!failure && !options.dry_run);
  if (failure) std::rethrow_exception(failure);
  co_return created;
}

asio::awaitable<std::string> Store::store_created(const std::string& namespace_, json::object& object,
                                                  const WriteOptions& options, const std::string& generate_name) {
  const bool generated = meta_string(object, "name").empty() && !generate_name.empty();
  for (int attempt = 0;; ++attempt) {
    bool exists_error = false;
    if (generated) metadata_of(object)["name"] = generate_name + generate_name_suffix();
    validate(object, nullptr);
    if (options.user) strategy_->authorize_write(*options.user, object, nullptr);
    if (options.validate_admission) co_await options.validate_admission(object, nullptr);
    const std::string name(meta_string(object, "name"));
    if (options.dry_run) co_return json::serialize(object);
    try {
      // (g++ 12 destroys braced temporaries in a co_await expression twice: every argument is a named variable.)
      std::string object_key = key(namespace_, name);
      std::string bytes = encode_for_storage(object);
      storage::WriteOptions write_options;
      storage::KeyValue stored = co_await storage_.create(std::move(object_key), std::move(bytes), write_options);
      co_return with_resource_version(stored.value, stored.mod_revision);
    } catch (const storage::StorageError& error) {
      if (error.code() != storage::ErrorCode::KeyExists) rethrow(error, name, "create");
      if (generated && attempt + 1 < kGenerateNameAttempts) continue;
      exists_error = true;
    }
    // (co_await may not appear in a handler.)
    if (exists_error) co_await throw_already_exists(namespace_, name, !generate_name.empty());
  }
}

asio::awaitable<void> Store::throw_already_exists(const std::string& namespace_, const std::string& name,
                                                  bool has_generate_name) const {
  apierrors::Status status = apierrors::already_exists(definition_.group, definition_.resource, name);
  // rest.CheckGeneratedNameError: a name the server picked is its own failure, to be retried.
  if (has_generate_name) {
    status.message += ", the server was not able to generate a unique name for the object";
    if (status.details) status.details->retry_after_seconds = 1;
  }
  // A name taken by an object on its way out says so, as kube's Store.create does.
  storage::GetOptions read_options{.ignore_not_found = true};
  std::optional<storage::KeyValue> existing = co_await storage_.get(key(namespace_, name), read_options);
  std::optional<json::object> object = existing ? parse_json_object(existing->value) : std::nullopt;
  if (object && !meta_string(*object, "deletionTimestamp").empty())
    status.message = "object is being deleted: " + status.message;
  throw ApiError(std::move(status));
}

asio::awaitable<ReadObject> Store::get(std::string namespace_, std::string name, std::string resource_version) {
  try {
    storage::GetOptions options{.resource_version = std::move(resource_version)};
    std::string object_key = key(namespace_, name);
    std::optional<storage::ObjectRef> shared = co_await storage_.get_shared(std::move(object_key), options);
    co_return read_object(*shared);
  } catch (const storage::StorageError& error) {
    rethrow(error, name, "get");
  }
}

asio::awaitable<storage::SharedListResult> Store::list_shared(std::string namespace_, ListRequest request) {
  storage::ListOptions options;
  options.resource_version = std::move(request.resource_version);
  options.resource_version_match = request.resource_version_match;
  options.limit = request.limit;
  options.continue_token = std::move(request.continue_token);
  options.predicate = std::move(request.predicate);
  try {
    std::string list_prefix = prefix(namespace_);
    co_return co_await storage_.list_shared(std::move(list_prefix), std::move(options));
  } catch (const storage::StorageError& error) {
    if (error.code() == storage::ErrorCode::Expired && !error.continue_token().empty()) {
      apierrors::Status status = apierrors::resource_expired(
          "The provided continue parameter is too old to display a consistent list result. You can start a new "
          "list without the continue parameter, or use the continue token in this response to retrieve the "
          "remainder of the results. Continuing with the provided token results in an inconsistent list - "
          "objects that were created, modified, or deleted between the time the first chunk was returned and now "
          "may show up in the list.");
      status.continue_token = error.continue_token();
      throw ApiError(std::move(status));
    }
    rethrow(error, "", "list");
  }
}

asio::awaitable<ObjectList> Store::list(std::string namespace_, ListRequest request) {
  storage::SharedListResult shared = co_await list_shared(std::move(namespace_), std::move(request));
  co_return to_object_list(shared);
}

asio::awaitable<std::pair<std::string, bool>> Store::update(std::string namespace_, std::string name,
                                                            UpdateFunction update, WriteOptions options) {
  bool created = false;
  std::optional<std::string> dry_run_result;
  std::optional<storage::Revision> delete_at;  // set when the update deletes the object instead (finalized)
  std::string finalized_object;                // what that update would have stored
  Strategy::FinishWrite finish;                // the strategy's begin_write of the latest attempt
  // Ends the last attempt's begin_write; a retry begins again on the newer object.
  auto end_write = [&finish](bool stored) -> asio::awaitable<void> {
    Strategy::FinishWrite ending = std::exchange(finish, nullptr);
    if (ending) co_await ending(stored);
  };
  const std::string object_key = key(namespace_, name);
  storage::TryUpdate try_update = [&](const storage::KeyValue* current) -> asio::awaitable<std::optional<std::string>> {
    std::optional<json::object> old;
    if (current) {
      // As read from storage, with its resourceVersion: a patch of it keeps that version, so that it is no
      // unconditional update.
      old = parse_object(current->value);
      metadata_of(*old)["resourceVersion"] = std::to_string(current->mod_revision);
    }
    if (!old && !strategy_->allow_create_on_update() && !options.force_allow_create)
      throw ApiError(apierrors::not_found(definition_.group, definition_.resource, name));
    json::object object = update(old ? &*old : nullptr);
    set_type_meta(object);
    auto& meta = metadata_of(object);
    std::string_view body_name = meta_string(object, "name");
    if (body_name.empty()) meta["name"] = name;
    else if (body_name != name)
      throw ApiError(apierrors::bad_request("the name of the object (" + std::string(body_name) +
                                            ") does not match the name on the URL (" + name + ")"));
    if (definition_.namespaced) {
      std::string_view body_namespace = meta_string(object, "namespace");
      if (body_namespace.empty()) meta["namespace"] = namespace_;
      else if (body_namespace != namespace_)
        throw ApiError(apierrors::bad_request(
            "the namespace of the provided object does not match the namespace sent on the request"));
    } else {
      meta.erase("namespace");
    }
    created = !old;
    if (!old) {
      meta.erase("resourceVersion");
      strategy_->apply_scheme_defaults(object);
      if (options.record_managed_fields) options.record_managed_fields(nullptr, object);
      if (options.admit) co_await options.admit(object, nullptr);
      prepare_created(object, options);
      co_await end_write(false);
      finish = co_await strategy_->begin_write(object, nullptr, options.dry_run);
      validate(object, nullptr);
      if (options.user) strategy_->authorize_write(*options.user, object, nullptr);
      if (options.validate_admission) co_await options.validate_admission(object, nullptr);
    } else {
      std::string_view version = meta_string(object, "resourceVersion");
      if (version.empty() && !strategy_->allow_unconditional_update())
        // kube names the resource where the kind would be: `csidrivers.storage.k8s.io "x" is invalid`.
        throw ApiError(apierrors::invalid(
            definition_.group, definition_.resource, name,
            {validation::invalid_value(validation::Path("metadata").child("resourceVersion"), "0x0",
                                       "must be specified for an update")}));
      if (!version.empty() && version != std::to_string(current->mod_revision))
        throw storage::StorageError(storage::ErrorCode::ResourceVersionConflicts, object_key,
                                    std::string(kObjectModifiedMessage));
      std::string_view uid = meta_string(object, "uid");
      std::string_view old_uid = meta_string(*old, "uid");
      // The body's uid is a precondition (rest.DefaultUpdatedObjectInfo); kube's storage refuses it with an
      // invalid-object StorageError, whose whole text the 409 quotes.
      if (!uid.empty() && uid != old_uid)
        throw storage::StorageError(storage::ErrorCode::ResourceVersionConflicts, object_key,
                                    "StorageError: invalid object, Code: 4, Key: " + object_key +
                                        ", ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in "
                                        "precondition: " + std::string(uid) + ", UID in object meta: " +
                                        std::string(old_uid));
      const json::object& old_meta = old->at("metadata").as_object();
      for (std::string_view owned : {"uid", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds",
                                     "generation"}) {
        if (auto it = old_meta.find(owned); it != old_meta.end()) meta[owned] = it->value();
        else meta.erase(owned);
      }
      // As on create: admission before the strategy prepares (rest.BeforeUpdate).
      if (options.subresource.empty()) strategy_->apply_scheme_defaults(object);
      if (options.record_managed_fields) options.record_managed_fields(&*old, object);
      if (options.admit) co_await options.admit(object, &*old);
      if (options.subresource.empty()) {
        strategy_->prepare_for_update(object, *old);
        co_await end_write(false);
        finish = co_await strategy_->begin_write(object, &*old, options.dry_run);
      } else {
        strategy_->prepare_for_subresource_update(options.subresource, object, *old);
      }
      if (strategy_->tracks_generation() && spec_changed(object, *old, strategy_->generation_counts_status())) {
        auto& generation = metadata_of(object)["generation"];
        generation = (generation.is_int64() ? generation.as_int64() : 0) + 1;
      }
      keep_times_of_a_noop(object, *old);
      validate(object, &*old, !options.bypass_strategy_validation, options.subresource, options.warnings);
      if (options.user && options.subresource.empty()) strategy_->authorize_write(*options.user, object, &*old);
      else if (options.user) strategy_->authorize_subresource_write(options.subresource, *options.user, object, *old);
      if (options.validate_admission) co_await options.validate_admission(object, &*old);
    }
    std::string bytes = encode_for_storage(object);
    if (options.dry_run) {
      dry_run_result = current ? with_resource_version(bytes, current->mod_revision) : bytes;
      co_return std::nullopt;
    }
    if (old && deletes_during_update(object, *old)) {
      delete_at = current->mod_revision;
      finalized_object = std::move(bytes);
      co_return std::nullopt;
    }
    if (current && bytes == current->value) co_return std::nullopt;  // a no-op update writes nothing
    co_return bytes;
  };
  bool finalized = false;  // the update deleted the object
  auto write = [&]() -> asio::awaitable<std::pair<std::string, bool>> {
    if (options.dry_run) {
      storage::GetOptions read_options{.ignore_not_found = true};
      auto current = co_await storage_.get(object_key, read_options);
      co_await try_update(current ? &*current : nullptr);
      co_return std::pair{std::move(*dry_run_result), created};
    }
    for (;;) {
      delete_at.reset();
      storage::PreconditionCheck no_preconditions;
      storage::WriteOptions write_options;
      storage::KeyValue stored =
          co_await storage_.guaranteed_update(object_key, true, no_preconditions, try_update, write_options);
      if (!delete_at) co_return std::pair{with_resource_version(stored.value, stored.mod_revision), created};
      // The update removed the last finalizer of an object marked for deletion: it is deleted instead, unless
      // it changed in between, in which case the update runs again on the new state.
      bool changed_meanwhile = false;
      storage::PreconditionCheck unchanged = [&](const storage::KeyValue& latest) {
        if (latest.mod_revision != *delete_at) {
          changed_meanwhile = true;
          throw storage::StorageError(storage::ErrorCode::ResourceVersionConflicts, object_key,
                                      std::string(kObjectModifiedMessage));
        }
      };
      try {
        co_await storage_.remove(object_key, unchanged);
        finalized = true;
        // kube's deleteWithoutFinalizers answers with the object as the update made it, as clients of a PUT
        // expect, not with the stored one that still had the finalizer.
        co_return std::pair{with_resource_version(finalized_object, *delete_at), false};
      } catch (const storage::StorageError& error) {
        if (!changed_meanwhile) throw;
      }
    }
  };
  std::pair<std::string, bool> result;
  std::exception_ptr failure;
  try {
    result = co_await write();
  } catch (const storage::StorageError& error) {
    try {
      rethrow(error, name, "update");
    } catch (...) {
      failure = std::current_exception();
    }
  } catch (...) {
    failure = std::current_exception();
  }
  co_await end_write(!failure && !options.dry_run);
  if (failure) std::rethrow_exception(failure);
  if (finalized) co_await strategy_->after_delete(finalized_object);
  co_return result;
}

asio::awaitable<DeleteResult> Store::remove(std::string namespace_, std::string name, DeleteOptions options) {
  const std::string object_key = key(namespace_, name);
  try {
    storage::GetOptions read_options;
    auto current = co_await storage_.get(object_key, read_options);
    json::object object = parse_object(current->value);
    check_delete_preconditions(definition_, object, std::to_string(current->mod_revision), options);
    if (options.admission) co_await options.admission(object);
    DeleteResult result{.uid = std::string(meta_string(object, "uid"))};
    // The latest state is checked again before each write: the object may change between the read and the write.
    auto check_preconditions_again = [&](const storage::KeyValue& latest, const json::object& latest_object) {
      if (options.precondition_uid && *options.precondition_uid != meta_string(latest_object, "uid"))
        throw storage::StorageError(storage::ErrorCode::ResourceVersionConflicts, object_key,
                                    "Precondition failed: UID in precondition: " + *options.precondition_uid +
                                        ", UID in object meta: " + std::string(meta_string(latest_object, "uid")));
      if (options.precondition_resource_version &&
          *options.precondition_resource_version != std::to_string(latest.mod_revision))
        throw storage::StorageError(storage::ErrorCode::ResourceVersionConflicts, object_key,
                                    "Precondition failed: ResourceVersion in precondition: " +
                                        *options.precondition_resource_version +
                                        ", ResourceVersion in object meta: " + std::to_string(latest.mod_revision));
    };

    if (auto handled = strategy_->mark_for_deletion(object, options.grace_period_seconds)) {
      result.deleted = false;
      if (options.dry_run) {
        result.object = with_resource_version(encode_for_storage(std::move(*handled)), current->mod_revision);
        co_return result;
      }
      // Re-marked from the latest state if a write slips in between; an unchanged mark writes nothing.
      storage::TryUpdate mark = [&](const storage::KeyValue* latest) -> std::optional<std::string> {
        json::object latest_object = parse_object(latest->value);
        check_preconditions_again(*latest, latest_object);
        auto remarked = strategy_->mark_for_deletion(latest_object, options.grace_period_seconds);
        if (!remarked) return std::nullopt;
        std::string bytes = encode_for_storage(std::move(*remarked));
        if (bytes == latest->value) return std::nullopt;
        return bytes;
      };
      storage::PreconditionCheck no_preconditions;
      storage::WriteOptions write_options;
      storage::KeyValue stored =
          co_await storage_.guaranteed_update(object_key, false, no_preconditions, mark, write_options);
      result.object = with_resource_version(stored.value, stored.mod_revision);
      co_return result;
    }

    // kube's Store.Delete: a graceful deletion or finalizers (the object's own, or the garbage collector's for the
    // propagation policy) turn the DELETE into an update that marks the object; otherwise it is removed.
    std::optional<std::int64_t> grace = options.grace_period_seconds;
    json::object probe = object;
    const GracefulDeletion verdict = before_delete(*strategy_, probe, grace);
    if (verdict.pending) {
      result.deleted = false;
      result.object = with_resource_version(current->value, current->mod_revision);
      co_return result;
    }
    const bool finalizers_change = garbage_collection_ && garbage_collection_finalizers(*strategy_, object, options);
    bool ignore_not_found = false;
    std::optional<std::string> last_existing;
    std::optional<std::string> removal_precondition = options.precondition_resource_version;
    if (verdict.graceful || has_finalizers(object) || finalizers_change) {
      enum class Outcome { kMarked, kDeleteNow, kAlreadyDeleting };
      Outcome outcome = Outcome::kMarked;
      bool finalizers_pending = false;
      std::int64_t last_graceful = 0;
      auto mark = [&](const storage::KeyValue* latest) -> std::optional<std::string> {
        json::object existing = parse_object(latest->value);
        check_preconditions_again(*latest, existing);
        std::optional<std::int64_t> requested = grace;
        const GracefulDeletion again = before_delete(*strategy_, existing, requested);
        if (again.pending) {
          outcome = Outcome::kAlreadyDeleting;
          return std::nullopt;
        }
        if (garbage_collection_) {
          if (auto finalizers = garbage_collection_finalizers(*strategy_, existing, options)) {
            json::object& meta = metadata_of(existing);
            if (finalizers->empty()) meta.erase("finalizers");
            else meta["finalizers"] = std::move(*finalizers);
          }
        }
        finalizers_pending = has_finalizers(existing);
        if (!again.graceful && !finalizers_pending) {
          outcome = Outcome::kDeleteNow;
          return std::nullopt;
        }
        if (!again.graceful) mark_as_deleting(existing);
        outcome = Outcome::kMarked;
        last_graceful = again.graceful ? again.period : 0;
        std::string bytes = encode_for_storage(std::move(existing));
        last_existing = with_resource_version(bytes, latest->mod_revision);
        if (bytes == latest->value) return std::nullopt;
        return bytes;
      };
      storage::KeyValue stored = *current;
      if (options.dry_run) {
        if (auto bytes = mark(&*current)) stored.value = std::move(*bytes);
      } else {
        storage::PreconditionCheck no_preconditions;
        storage::WriteOptions write_options;
        stored = co_await storage_.guaranteed_update(object_key, false, no_preconditions, storage::TryUpdate(mark),
                                                     write_options);
      }
      if (outcome == Outcome::kAlreadyDeleting) {
        result.deleted = false;
        result.object = with_resource_version(current->value, current->mod_revision);
        co_return result;
      }
      if (outcome == Outcome::kMarked) {
        result.object = with_resource_version(stored.value, stored.mod_revision);
        // Finalizers keep the object, and so does a grace period still to run; a zero one (a pod deleted with
        // --grace-period=0) was marked and now goes, even should someone else remove it first.
        if (finalizers_pending || last_graceful > 0) {
          result.deleted = false;
          co_return result;
        }
        if (options.dry_run) co_return result;
        ignore_not_found = true;
        if (removal_precondition) removal_precondition = std::to_string(stored.mod_revision);
      }
    }
    if (options.dry_run) {
      result.object = with_resource_version(current->value, current->mod_revision);
      co_return result;
    }
    storage::PreconditionCheck unchanged = [&](const storage::KeyValue& latest) {
      if (removal_precondition && std::to_string(latest.mod_revision) != *removal_precondition)
        throw storage::StorageError(storage::ErrorCode::ResourceVersionConflicts, object_key,
                                    std::string(kObjectModifiedMessage));
    };
    try {
      auto removed = co_await storage_.remove(object_key, unchanged);
      result.object = with_resource_version(removed.value, removed.mod_revision);
      co_await strategy_->after_delete(removed.value);
    } catch (const storage::StorageError& error) {
      if (error.code() != storage::ErrorCode::KeyNotFound || !ignore_not_found || !last_existing) throw;
      result.object = *last_existing;  // someone else removed it first: the last state seen stands for it
    }
    co_return result;
  } catch (const storage::StorageError& error) {
    rethrow(error, name, "delete");
  }
}

asio::awaitable<ObjectList> Store::remove_collection(std::string namespace_, ListRequest request,
                                                    DeleteOptions options) {
  ObjectList listed = co_await list(std::move(namespace_), std::move(request));
  for (const ReadObject& item : listed.items) {
    json::object object = parse_object(item.json);
    std::string item_namespace(meta_string(object, "namespace"));
    std::string item_name(meta_string(object, "name"));
    try {
      co_await remove(std::move(item_namespace), std::move(item_name), options);
    } catch (const ApiError& error) {
      if (error.status().code != 404) throw;  // deleted meanwhile: nothing left to do
    }
  }
  co_return listed;
}

bool Store::deletes_during_update(const json::object& object, const json::object& old) const {
  if (meta_string(old, "deletionTimestamp").empty()) return false;
  const json::object& meta = object.at("metadata").as_object();
  if (auto it = meta.find("finalizers"); it != meta.end() && it->value().is_array() && !it->value().as_array().empty())
    return false;
  const json::object& old_meta = old.at("metadata").as_object();
  if (auto it = old_meta.find("deletionGracePeriodSeconds");
      it != old_meta.end() && it->value().is_int64() && it->value().as_int64() != 0)
    return false;  // a graceful deletion still running (a pod): whoever runs it deletes the object
  return strategy_->deletes_when_finalized(object);
}

asio::awaitable<std::unique_ptr<storage::WatchStream>> Store::watch(std::string namespace_,
                                                                    storage::WatchOptions options) {
  try {
    std::string watch_prefix = prefix(namespace_);
    co_return co_await storage_.watch(std::move(watch_prefix), std::move(options));
  } catch (const storage::StorageError& error) {
    rethrow(error, "", "watch");
  }
}

}  // namespace kapi::registry
