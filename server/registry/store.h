#pragma once
// The generic registry Store (genericregistry.Store): every verb of one resource over a storage::Interface
// (normally the resource's Cacher), with the metadata handling all resources share and the Strategy for what
// differs. Objects arrive as parsed JSON and leave as JSON bytes with metadata.resourceVersion set.
//
// Errors are thrown as apierrors::ApiError with kube-apiserver's Status.
#include "server/registry/deletion.h"
#include "server/registry/resource.h"
#include "server/registry/strategy.h"
#include "storage/shared_object.h"
#include "storage/interface.h"

#include <asio/awaitable.hpp>
#include <boost/json/object.hpp>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kapi::registry {

struct WriteOptions {
  bool dry_run = false;  // dryRun=All: everything but the write
  // The subresource written ("status", "finalize"); its handler has already limited the change to it, so the
  // main resource's prepare_for_update (which resets what the subresources own) does not run.
  std::string subresource;
  // A write the resource's own rules do not apply to (kube's direct storage updates, e.g. pods/binding setting
  // spec.nodeName, which pod updates may not change): only the generic metadata checks run.
  bool bypass_strategy_validation = false;
  // An update of a missing object creates it even where the resource does not allow that (kube's
  // forceAllowCreate: server-side apply creates through PATCH).
  bool force_allow_create = false;
  // Who asks, for the strategy's authorize_write; none for the server's own writes.
  std::optional<request::UserInfo> user;
  // Where an update's validation warns (the request's Warning headers): kube's warning.AddWarning from
  // ValidateUpdate, such as a custom resource's CEL rules that ratcheting let an unchanged value keep breaking.
  // Null: dropped.
  std::vector<std::string>* warnings = nullptr;
  // Records the write in the object's metadata.managedFields (the FieldManager's Update), given the stored object
  // (null on create): called once the object is as kube's decoding leaves it (its scheme defaults applied, so that
  // defaulted fields count as kube counts them), before admission and the strategy's preparation; again on a
  // retry.
  std::function<void(const boost::json::object* old, boost::json::object& object)> record_managed_fields;
  // Admission (the handler's chain: kube's mutating admission and its createValidation/updateValidation),
  // given the stored object (null on create). `admit` may change the object: it runs once its managedFields are
  // recorded (changes made here are no one's, as in kube) and before the strategy prepares it (kube's
  // BeforeCreate/BeforeUpdate); `validate_admission` sees the object as it will be stored, after the resource's
  // validation. Both throw ApiError to refuse and run
  // again on a retry.
  std::function<asio::awaitable<void>(boost::json::object& object, const boost::json::object* old)> admit;
  std::function<asio::awaitable<void>(const boost::json::object& object, const boost::json::object* old)>
      validate_admission;
};


struct ListRequest {
  std::string resource_version;
  storage::ResourceVersionMatch resource_version_match = storage::ResourceVersionMatch::Unset;
  std::int64_t limit = 0;
  std::string continue_token;
  storage::Predicate predicate;  // labels and fields, see predicate.h
};

// An object as reads return it: its JSON with metadata.resourceVersion set and the encodings of that object version
// in other formats (storage/shared_object.h): shared with the watch cache when the cache served the read, so
// each format of an object version is encoded once however many clients read it. Null for objects no read shares.
struct ReadObject {
  std::string json;
  std::shared_ptr<const storage::EncodingCache> encodings;
};

struct ObjectList {
  std::vector<ReadObject> items;
  storage::Revision revision = 0;
  std::string continue_token;
  std::optional<std::int64_t> remaining_item_count;
};

// The list's objects as reads return them (each JSON copied, with its resourceVersion set).
ObjectList to_object_list(const storage::SharedListResult& shared);


// Given the current object (nullptr when absent), the object to store. Called again after a lost race.
using UpdateFunction = std::function<boost::json::object(const boost::json::object* current)>;

class Store {
 public:
  // With `garbage_collection` (kube-apiserver's --enable-garbage-collector), a DELETE records its propagation
  // policy in the garbage collector's finalizers; without it nothing would remove them, so none are added.
  Store(ResourceDefinition definition, std::shared_ptr<const Strategy> strategy, storage::Interface& storage,
        std::string key_root = "/registry", bool garbage_collection = false);

  const ResourceDefinition& definition() const { return definition_; }
  const Strategy& strategy() const { return *strategy_; }
  storage::Interface& storage() const { return storage_; }

  // "/registry/configmaps/<namespace>/<name>"; "/registry/namespaces/<name>" for cluster-scoped resources.
  std::string key(std::string_view namespace_, std::string_view name) const;
  // The list/watch prefix: every object of the resource, or of one namespace (ending in '/'); with room for
  // `room_after` more bytes.
  std::string prefix(std::string_view namespace_, std::size_t room_after = 0) const;

  asio::awaitable<std::string> create(std::string namespace_, boost::json::object object, WriteOptions options);
  asio::awaitable<ReadObject> get(std::string namespace_, std::string name, std::string resource_version);
  asio::awaitable<ObjectList> list(std::string namespace_, ListRequest request);
  // The same list as the stored objects themselves (shared with the watch cache when it served the list): a
  // reader that encodes them one at a time (a streamed LIST response) never holds a copy of them all.
  asio::awaitable<storage::SharedListResult> list_shared(std::string namespace_, ListRequest request);
  // PUT (and PATCH through `update`): returns the stored object and whether it was created.
  asio::awaitable<std::pair<std::string, bool>> update(std::string namespace_, std::string name,
                                                       UpdateFunction update, WriteOptions options);
  asio::awaitable<DeleteResult> remove(std::string namespace_, std::string name, DeleteOptions options);
  // DELETE of a collection (kube's DeleteCollection): each object the list request selects is deleted (or marked)
  // with `options`, one gone meanwhile is skipped; the answer is the list as it was selected, as kube's.
  asio::awaitable<ObjectList> remove_collection(std::string namespace_, ListRequest request, DeleteOptions options);
  asio::awaitable<std::unique_ptr<storage::WatchStream>> watch(std::string namespace_, storage::WatchOptions options);

  // The bytes the backend keeps for an object: kind, apiVersion, metadata first, no resourceVersion.
  static std::string encode_for_storage(boost::json::object object);

 private:
  // The checks and defaults every create and update runs (ObjectMeta validation + the strategy's).
  // `subresource` names the subresource an update writes ("" for the main resource); an update's validation
  // warnings go to `warnings` (none: dropped).
  void validate(const boost::json::object& object, const boost::json::object* old, bool with_strategy = true,
                std::string_view subresource = {}, std::vector<std::string>* warnings = nullptr) const;
  void set_type_meta(boost::json::object& object) const;
  bool deletes_during_update(const boost::json::object& object, const boost::json::object& old) const;
  // The AlreadyExists a create meets, with kube's wording for generated names and objects being deleted.
  asio::awaitable<void> throw_already_exists(const std::string& namespace_, const std::string& name,
                                             bool has_generate_name) const;
  [[noreturn]] void rethrow(const storage::StorageError& error, std::string_view name, std::string_view operation) const;
  void prepare_created(boost::json::object& object, const WriteOptions& options) const;
  // create()'s part after the strategy's begin_write: validated, admitted and stored (under a fresh generated name
  // while the last one was taken).
  asio::awaitable<std::string> store_created(const std::string& namespace_, boost::json::object& object,
                                             const WriteOptions& options, const std::string& generate_name);

  ResourceDefinition definition_;
  std::shared_ptr<const Strategy> strategy_;
  storage::Interface& storage_;
  std::string key_root_;
  bool garbage_collection_ = false;
};

}  // namespace kapi::registry
