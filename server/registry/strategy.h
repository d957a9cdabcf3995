#pragma once
// How one resource differs from every other in the generic Store: the role of the RESTCreateStrategy,
// RESTUpdateStrategy and RESTDeleteStrategy a resource gives genericregistry.Store. Defaults suit a plain
// namespaced object such as a ConfigMap; a resource overrides what it needs.
#include "request/exchange.h"
#include "request/request_context.h"
#include "server/patch/patch_schema.h"
#include "server/registry/table.h"
#include "server/validation/field_error.h"

#include <asio/awaitable.hpp>
#include <boost/json/object.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>
#include <string_view>

namespace kapi::registry {

class Store;

// What a CreateSubresource answers: an object of its kind (a TokenRequest with its token), or nothing for a
// Success Status.
using SubresourceAnswer = std::optional<boost::json::object>;

// kube's rest.GarbageCollectionPolicy.
enum class GarbageCollectionPolicy { kDeleteDependents, kOrphanDependents, kUnsupported };

// A subresource that takes a POST of another kind and acts on its object (kube: the rest.Creater at
// "pods/binding", "pods/eviction" or "serviceaccounts/token"), answering 201 with what `create` returns.
struct CreateSubresource {
  std::string name;                  // "binding"
  std::string group, version, kind;  // the body's: "", "v1", "Binding"
  // Checks `body` (already decoded and conformed to its kind) and applies it to the object `name` through
  // `store`; throws ApiError with kube's Status to refuse.
  std::function<asio::awaitable<SubresourceAnswer>(Store& store, std::string namespace_, std::string name,
                                                   boost::json::object body, bool dry_run)>
      create;
};

// What a connect subresource is asked: the request to answer, and the object it is about.
struct ConnectRequest {
  request::Exchange& exchange;
  Store& store;  // the resource's own (pods for pods/exec)
  std::string namespace_;
  std::string name;
  std::string path;  // what follows the subresource in the URL: "/a/b" for .../proxy/a/b, "" when nothing does
};

// A subresource kube serves with a rest.Connecter or a streaming Getter (pods/exec, pods/log, services/proxy, ...):
// its handler answers the exchange itself, usually by relaying it to a kubelet, a pod or a service.
struct ConnectSubresource {
  std::string name;                // "exec"
  std::string kind;                // discovery's kind: its options ("PodExecOptions"), pods/log's "Pod"
  std::vector<std::string> verbs;  // discovery's verbs, which are also the ones served: {"create", "get"}
  std::function<asio::awaitable<void>(ConnectRequest request)> connect;
  // A rest.Connecter's NewConnectOptions as getRequestOptions fills it from the query (a proxy's `path` from
  // `subpath`, what the URL has after the subresource): the object, with kind and apiVersion, that the request is
  // admitted with as a CONNECT. Throws ApiError for a parameter that does not convert. Unset for pods/log, a
  // streaming GET that kube neither admits nor calls a CONNECT.
  std::function<boost::json::object(const http::QueryParams& query, const std::string& subpath)> options;
};

// Field selector values of one object ("metadata.name" → "x"), as the resource's GetAttrs offers them.
using SelectableFields = std::map<std::string, std::string, std::less<>>;

// Where a resource's /scale subresource reads and writes (a CRD's subresources.scale): field names from the root,
// e.g. {"spec", "replicas"}; an empty selector path means the Scale has no selector. Built-in scalable kinds use
// spec.replicas, status.replicas and the LabelSelector at spec.selector.
struct ScalePaths {
  std::vector<std::string> spec_replicas, status_replicas, label_selector;
};

// A patch schema that knows only ObjectMeta (labels, annotations, finalizers, ownerReferences).
patch::MapPatchSchema object_with_metadata(std::string type_name);

class Strategy {
 public:
  virtual ~Strategy() = default;

  // kube's defaulting functions of the kind beyond its +default markers (SetDefaults_Pod, SetDefaults_Deployment,
  // ...), which kube runs on decoding: prepare_for_create and prepare_for_update run them here, and admission runs
  // them on an object a mutating webhook patched (kube's ObjectDefaulter).
  virtual void apply_scheme_defaults(boost::json::object& /*object*/) const {}
  // Sets defaults and clears what a client may not set on create (e.g. status when the resource has a status
  // subresource). Metadata the Store owns (uid, creationTimestamp, ...) is already set.
  virtual void prepare_for_create(boost::json::object& /*object*/) const {}
  // Likewise on update; `old` is the stored object.
  virtual void prepare_for_update(boost::json::object& /*object*/, const boost::json::object& /*old*/) const {}
  // kube's BeginCreate and BeginUpdate: what a write takes from outside its object (a service's IPs and ports from
  // the ranges every server shares) once the object is prepared; `old` is the stored object on update. The
  // returned function ends it, told whether the object was stored (kube's FinishFunc); none when there is nothing
  // to end. A dry run takes nothing.
  using FinishWrite = std::function<asio::awaitable<void>(bool stored)>;
  virtual asio::awaitable<FinishWrite> begin_write(boost::json::object& object, const boost::json::object* old,
                                                   bool dry_run) const;
  // kube's AfterDelete: the object, whose stored bytes these are, is gone from storage. (Bytes, not a parsed
  // object: most strategies do nothing here, and a delete should not parse for them.)
  virtual asio::awaitable<void> after_delete(std::string_view stored) const;
  // Records who asks on create (kube's PrepareForCreate reading genericapirequest.UserFrom(ctx), e.g. a
  // CertificateSigningRequest's requestor, which a client cannot forge). Runs after prepare_for_create, for
  // requests only.
  virtual void record_requestor(boost::json::object& /*object*/, const request::UserInfo& /*user*/) const {}
  // A write of `subresource` ("status", "ephemeralcontainers"), whose handler has already limited the change to
  // what the subresource owns: what the subresource's own strategy adds (kube's status strategies'
  // PrepareForUpdate, e.g. a PersistentVolume's phase transition time). prepare_for_update does not run for it.
  virtual void prepare_for_subresource_update(std::string_view /*subresource*/, boost::json::object& /*object*/,
                                              const boost::json::object& /*old*/) const {}
  // The resource's own checks; the Store validates the generic metadata itself.
  virtual validation::ErrorList validate(const boost::json::object& /*object*/) const { return {}; }
  virtual validation::ErrorList validate_update(const boost::json::object& object,
                                                const boost::json::object& /*old*/) const {
    return validate(object);
  }
  // The checks of a subresource write (kube's status strategies' ValidateUpdate); the main update's by default.
  virtual validation::ErrorList validate_subresource_update(std::string_view /*subresource*/,
                                                            const boost::json::object& object,
                                                            const boost::json::object& old) const {
    return validate_update(object, old);
  }
  // Validates an update through `subresource` ("" for the main resource), adding to `warnings` what kube's
  // validation reports with warning.AddWarning instead of refusing. The Store validates updates through this; by
  // default it is validate_update or validate_subresource_update, with no warnings.
  virtual validation::ErrorList validate_update_with_warnings(std::string_view subresource,
                                                              const boost::json::object& object,
                                                              const boost::json::object& old,
                                                              std::vector<std::string>& /*warnings*/) const {
    return subresource.empty() ? validate_update(object, old) : validate_subresource_update(subresource, object, old);
  }
  // kube's policy-based storages: refuses (throws ApiError) what `user` may not write even though the
  // authorization filter let the verb through (RBAC's escalation prevention). Runs after validation, for
  // requests only; `old` is the stored object on an update.
  virtual void authorize_write(const request::UserInfo& /*user*/, const boost::json::object& /*object*/,
                               const boost::json::object* /*old*/) const {}
  // The same for an update through a subresource (kube's admission plugins see the subresource: the
  // CertificateApproval plugin asks on every /approval write); by default the main resource's check.
  virtual void authorize_subresource_write(std::string_view /*subresource*/, const request::UserInfo& user,
                                           const boost::json::object& object, const boost::json::object& old) const {
    authorize_write(user, object, &old);
  }
  // Name rules: most resources use DNS-1123 subdomains, namespaces DNS-1123 labels.
  virtual bool name_is_dns_label() const { return false; }
  // RBAC roles and bindings take any name that can travel as a URL path segment ("system:controller:x").
  virtual bool name_is_path_segment() const { return false; }
  // PUT of a missing object creates it (e.g. leases do not; kube: AllowCreateOnUpdate).
  virtual bool allow_create_on_update() const { return false; }
  // An update without metadata.resourceVersion overwrites whatever is stored (kube: AllowUnconditionalUpdate). When
  // false, such an update is refused with 422, so that writers cannot lose each other's changes.
  virtual bool allow_unconditional_update() const { return true; }
  // Whether metadata.generation is kept and bumped when anything but metadata and status changes.
  virtual bool tracks_generation() const { return false; }
  // Whether a status change bumps it too (custom resources without a status subresource, where status is just
  // another field).
  virtual bool generation_counts_status() const { return false; }
  // A deletion the resource handles itself (kube: the REST Delete of namespaces and CRDs, which mark the object
  // Terminating, and of priority classes, which refuses the system ones): the object to store instead of deleting
  // `current`; std::nullopt goes on with the generic deletion (graceful deletion, finalizers). May throw ApiError.
  virtual std::optional<boost::json::object> mark_for_deletion(
      const boost::json::object& /*current*/, std::optional<std::int64_t> /*grace_period_seconds*/) const {
    return std::nullopt;
  }
  // The grace period a DELETE of `object` waits for before it is removed (kube's RESTGracefulDeleteStrategy,
  // CheckGracefulDelete), given the request's period (made positive already); std::nullopt for kinds deleted at
  // once, which is every kind but pods. A period of 0 still marks the object before deleting it, as kube does.
  virtual std::optional<std::int64_t> graceful_deletion_period(const boost::json::object& /*object*/,
                                                               std::optional<std::int64_t> /*requested*/) const {
    return std::nullopt;
  }
  // What a DELETE that names no propagation policy does to the object's dependents (kube's
  // GarbageCollectionDeleteStrategy): most kinds have them deleted; core/v1 ReplicationControllers and batch/v1
  // Jobs orphan them, for compatibility with clients older than the garbage collector.
  virtual GarbageCollectionPolicy default_garbage_collection_policy() const {
    return GarbageCollectionPolicy::kDeleteDependents;
  }
  // The warning a DELETE gets when it leaves the choice to an orphaning default (kube's Job REST), if any.
  virtual std::string_view default_orphaning_warning() const { return {}; }
  // Whether an update that leaves an object marked for deletion without finalizers deletes it (kube:
  // ShouldDeleteDuringUpdate); namespaces also wait for their spec.finalizers.
  virtual bool deletes_when_finalized(const boost::json::object& /*object*/) const { return true; }
  // DELETE answers with the deleted object rather than a Success Status (kube: ReturnDeletedObject).
  virtual bool return_deleted_object() const { return false; }
  // Field selector names beyond metadata.name and metadata.namespace (e.g. pods' spec.nodeName), and their values.
  virtual std::vector<std::string> selectable_field_names() const { return {}; }
  virtual void selectable_fields(const boost::json::object& /*object*/, SelectableFields& /*fields*/) const {}
  // For a kind without a type schema in the catalog that conforms its own bodies (a custom resource: pruned and
  // defaulted by its CRD's schema): conforms `object` and returns the unknown fields it dropped, by path
  // ("spec.extra"); nullopt keeps the body as sent.
  virtual std::optional<std::vector<std::string>> conform(boost::json::object& /*object*/) const {
    return std::nullopt;
  }
  // Where /scale reads and writes, for resources whose replicas are not at spec.replicas (custom resources).
  virtual std::optional<ScalePaths> scale_paths() const { return std::nullopt; }
  // Warnings about an object a request writes, as kube's WarningsOnCreate/WarningsOnUpdate (e.g. an
  // Ingress's deprecated class annotation).
  virtual std::vector<std::string> write_warnings(const boost::json::object& /*object*/) const { return {}; }
  // Warnings every request to the resource gets (a deprecated custom resource version's deprecationWarning).
  virtual std::vector<std::string> request_warnings() const { return {}; }
  // The fields a write through `subresource` ("" for the main resource) resets, whose ownership server-side apply
  // does not track there (kube's ResetFieldsStrategy.GetResetFields), as paths of field names from the root;
  // nullopt for the generic rule of a resource with a status subresource: the main resource resets status, the
  // status subresource spec, the other subresources status.
  virtual std::optional<std::vector<std::vector<std::string>>> reset_fields(std::string_view /*subresource*/) const {
    return std::nullopt;
  }
  // Whether PATCH takes strategic merge patches (custom resources do not: 415, as in kube).
  virtual bool strategic_merge_patch() const { return true; }
  // What strategic merge patch needs to know of the type (merge keys, strategies). The default knows ObjectMeta.
  virtual const patch::PatchSchema& patch_schema() const;
  // Subresources that take a POST of another kind (see CreateSubresource); each is also named in the
  // resource's definition.
  virtual std::vector<CreateSubresource> create_subresources() const { return {}; }
  // Subresources that connect the client to something else (see ConnectSubresource); each is also named in the
  // resource's definition.
  virtual std::vector<ConnectSubresource> connect_subresources() const { return {}; }
  // Server-side printing: the Table columns and one object's cells (kube's printers in pkg/printers/internalversion).
  virtual std::vector<TableColumn> table_columns() const { return default_table_columns(); }
  virtual boost::json::array table_cells(const boost::json::object& object) const { return default_table_cells(object); }
  // The order of a list's rows, for the few list printers that sort (printFlowSchemaList: by matching precedence,
  // then name); by default the rows keep the list's order.
  virtual void order_table_rows(std::vector<boost::json::object>& /*objects*/) const {}
  // The row's conditions (metav1.TableRowCondition), e.g. Completed for a finished pod; empty for most kinds.
  virtual boost::json::array table_row_conditions(const boost::json::object& /*object*/) const { return {}; }
};

}  // namespace kapi::registry
