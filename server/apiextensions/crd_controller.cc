#include "server/apiextensions/crd_controller.h"

#include "base/log.h"
#include "server/apierrors/errors.h"
#include "server/apiextensions/customresourcedefinitions.h"
#include "server/registry/deletion.h"
#include "server/registry/object_meta.h"
#include "server/registry/reflector.h"

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/redirect_error.hpp>
#include <asio/strand.hpp>
#include <asio/this_coro.hpp>
#include <asio/use_awaitable.hpp>
#include <boost/json.hpp>

#include <map>
#include <set>

namespace kapi::apiextensions {
namespace {

namespace json = boost::json;

json::object names_json(const CrdNames& names) {
  json::object out{{"plural", names.plural}, {"singular", names.singular}, {"kind", names.kind},
                   {"listKind", names.list_kind}};
  if (!names.short_names.empty()) out["shortNames"] = json::value_from(names.short_names);
  if (!names.categories.empty()) out["categories"] = json::value_from(names.categories);
  return out;
}

struct NamingResult {
  CrdNames accepted;
  bool accepted_all = true;
  std::string reason = "NoConflicts", message = "no conflicts found";
};

// naming_controller's calculateNamesAndConditions: the names another CRD of the group has accepted are taken.
NamingResult calculate_names(const Crd& crd, const std::vector<Crd>& all) {
  std::set<std::string> plurals, singulars, short_names, kinds, list_kinds;
  for (const auto& other : all) {
    if (other.name == crd.name || other.group != crd.group) continue;
    const CrdNames& names = other.accepted_names;
    plurals.insert(names.plural);
    singulars.insert(names.singular);
    short_names.insert(names.short_names.begin(), names.short_names.end());
    kinds.insert(names.kind);
    list_kinds.insert(names.list_kind);
  }
  NamingResult result;
  result.accepted = crd.accepted_names;
  auto refuse = [&](std::string reason, const std::string& name) {
    if (!result.accepted_all) return;
    result.accepted_all = false;
    result.reason = std::move(reason);
    result.message = "\"" + name + "\" is already in use";
  };
  const CrdNames& wanted = crd.names;
  if (plurals.contains(wanted.plural) || singulars.contains(wanted.plural)) refuse("PluralConflict", wanted.plural);
  else if (plurals.contains(wanted.singular) || singulars.contains(wanted.singular))
    refuse("SingularConflict", wanted.singular);
  if (result.accepted_all)
    for (const auto& name : wanted.short_names)
      if (short_names.contains(name) || plurals.contains(name) || singulars.contains(name))
        refuse("ShortNamesConflict", name);
  if (result.accepted_all && (kinds.contains(wanted.kind) || list_kinds.contains(wanted.kind)))
    refuse("KindConflict", wanted.kind);
  if (result.accepted_all && (kinds.contains(wanted.list_kind) || list_kinds.contains(wanted.list_kind)))
    refuse("ListKindConflict", wanted.list_kind);
  if (result.accepted_all) result.accepted = wanted;
  return result;
}

bool condition_is(const json::object& crd, std::string_view type, std::string_view reason) {
  const json::object* condition = find_condition(crd, type);
  return condition && registry::string_field(*condition, "reason") == reason;
}

std::function<void(json::object&)> terminating_condition(std::string reason, std::string message) {
  return [reason = std::move(reason), message = std::move(message)](json::object& next) {
    set_crd_condition(next, "Terminating", "True", reason, message);
  };
}

}  // namespace

CrdController::CrdController(registry::Store& crds, CustomResourceServer& server, base::Logger& logger,
                             std::shared_ptr<const std::atomic<bool>> stopping)
    : crds_store_(crds), server_(server), logger_(logger), stopping_(std::move(stopping)) {}

void CrdController::start(asio::any_io_executor executor, std::function<void()> served) {
  served_ = std::move(served);
  auto strand = asio::make_strand(executor);
  wake_ = std::make_unique<asio::steady_timer>(strand);
  asio::co_spawn(strand, follow(), asio::detached);
  asio::co_spawn(strand, work(), asio::detached);
}

void CrdController::wake() {
  dirty_ = true;
  wake_->cancel();
}

asio::awaitable<void> CrdController::follow() {
  registry::ReflectorHandlers handlers{
      .replace = [this](std::vector<json::object> objects, storage::Revision) -> asio::awaitable<void> {
        crds_.clear();
        for (auto& object : objects) {
          std::string name(registry::meta_string(object, "name"));
          crds_[name] = std::move(object);
        }
        listed_ = true;
        wake();
        co_return;
      },
      .apply = [this](const storage::WatchEvent& event, json::object object) -> asio::awaitable<void> {
        std::string name(registry::meta_string(object, "name"));
        if (event.type == storage::WatchEventType::Deleted) {
          crds_.erase(name);
          server_.withdraw(std::string(registry::meta_string(object, "uid")));
        }
        else crds_[name] = std::move(object);
        wake();
        co_return;
      }};
  registry::ReflectorOptions options{.following = "customresourcedefinitions"};
  auto following = registry::reflect(crds_store_, std::move(handlers), std::move(options), stopping_, logger_);
  co_await std::move(following);
}

asio::awaitable<void> CrdController::work() {
  bool retry_soon = false;
  while (!stopping_->load()) {
    if (!dirty_) {
      // Woken by a change; a CRD still finalizing, or a failed write, is looked at again after a while.
      wake_->expires_after(retry_soon ? std::chrono::seconds(1) : std::chrono::hours(1));
      boost::system::error_code ignored;
      co_await wake_->async_wait(asio::redirect_error(asio::use_awaitable, ignored));
      if (!dirty_ && !retry_soon) continue;
    }
    dirty_ = false;
    if (!listed_) continue;
    try {
      co_await reconcile();
      retry_soon = false;
      for (const auto& [name, crd] : crds_) retry_soon = retry_soon || parse_crd(crd).terminating;
    } catch (const apierrors::ApiError& error) {
      // A conflict or a CRD deleted meanwhile: the next event brings the current state.
      if (error.status().code != 409 && error.status().code != 404 && !stopping_->load())
        logger_.warning("customresourcedefinitions: " + error.status().message);
      retry_soon = true;
    } catch (const std::exception& error) {
      if (!stopping_->load()) logger_.warning(std::string("customresourcedefinitions: ") + error.what());
      retry_soon = true;
    }
  }
}

asio::awaitable<void> CrdController::reconcile() {
  std::vector<Crd> all;
  for (const auto& [name, object] : crds_) all.push_back(parse_crd(object));

  // Serving first: a CRD already established is served as soon as it is seen (also at start), and one about to
  // be established is served before the condition is written, so a client that waited for Established finds its
  // resources, discovery and OpenAPI in place (kube's handler serves from the informer the moment it sees the CRD).
  std::map<std::string, NamingResult> namings;
  for (const auto& crd : all)
    if (!crd.terminating) namings.emplace(crd.name, calculate_names(crd, all));
  std::vector<Crd> served;
  for (const auto& crd : all)
    if (crd.established || (namings.contains(crd.name) && namings.at(crd.name).accepted_all)) served.push_back(crd);
  co_await server_.serve_crds(std::move(served));
  synced_->store(true);
  if (served_) served_();

  for (const auto& crd : all) {
    if (crd.terminating) {
      if (!registry::has_finalizer(crds_.at(crd.name), kCleanupFinalizer)) continue;
      const json::object object = crds_.at(crd.name);
      bool empty = co_await delete_instances(object);
      if (!empty) continue;
      std::function<void(json::object&)> remove_finalizer = [](json::object& next) {
        json::value& finalizers = registry::metadata_of(next)["finalizers"];
        json::array kept;
        if (finalizers.is_array())
          for (const auto& item : finalizers.as_array())
            if (!item.is_string() || item.as_string() != kCleanupFinalizer) kept.push_back(item);
        finalizers = std::move(kept);
      };
      auto removing = write(crd.name, false, std::move(remove_finalizer));  // no temporaries in a co_await (g++ 12)
      co_await std::move(removing);
      continue;
    }
    const NamingResult& naming = namings.at(crd.name);
    const bool establish = naming.accepted_all || crd.established;
    const json::object& stored = crds_.at(crd.name);
    const json::object* names_condition = find_condition(stored, "NamesAccepted");
    const json::object* established_condition = find_condition(stored, "Established");
    const bool names_up_to_date =
        names_condition && registry::string_field(*names_condition, "status") == (naming.accepted_all ? "True" : "False") &&
        registry::string_field(*names_condition, "reason") == naming.reason;
    const bool accepted_up_to_date = names_json(naming.accepted) == names_json(crd.accepted_names);
    const bool establishment_up_to_date =
        established_condition &&
        registry::string_field(*established_condition, "status") == (establish ? "True" : "False");
    if (names_up_to_date && accepted_up_to_date && establishment_up_to_date) continue;
    std::function<void(json::object&)> name_and_establish = [naming, establish](json::object& next) {
      json::value& status = next["status"];
      if (!status.is_object()) status.emplace_object();
      status.as_object()["acceptedNames"] = names_json(naming.accepted);
      set_crd_condition(next, "NamesAccepted", naming.accepted_all ? "True" : "False", naming.reason, naming.message);
      if (establish) set_crd_condition(next, "Established", "True", "InitialNamesAccepted",
                                       "the initial names have been accepted");
      else set_crd_condition(next, "Established", "False", "NotAccepted", "not all names are accepted");
    };
    auto writing = write(crd.name, true, std::move(name_and_establish));
    co_await std::move(writing);
  }
}

asio::awaitable<bool> CrdController::delete_instances(const json::object& crd) {
  const std::string name(registry::meta_string(crd, "name"));
  std::shared_ptr<registry::Store> store = server_.storage_version_store(registry::meta_string(crd, "uid"));
  if (!store) co_return true;  // never served: no instances were written through kapi
  if (!condition_is(crd, "Terminating", "InstanceDeletionInProgress")) {
    auto writing = write(name, true, terminating_condition("InstanceDeletionInProgress",
                                                           "CustomResource deletion is in progress"));
    co_await std::move(writing);
  }
  registry::ListRequest request;
  registry::ObjectList instances = co_await store->list("", std::move(request));
  for (const auto& item : instances.items) {
    auto object = registry::parse_json_object(item.json);
    if (!object) continue;
    const auto& meta = registry::metadata_of(*object);
    if (const json::value* deleting = meta.if_contains("deletionTimestamp"); deleting && !deleting->is_null())
      continue;  // waiting for its own finalizers
    try {
      registry::DeleteOptions options;
      auto pending = store->remove(std::string(registry::meta_string(*object, "namespace")),
                                   std::string(registry::meta_string(*object, "name")), options);
      co_await std::move(pending);
    } catch (const apierrors::ApiError& error) {
      if (error.status().code != 404) throw;
    }
  }
  registry::ListRequest again;
  registry::ObjectList left = co_await store->list("", std::move(again));
  if (!left.items.empty()) {
    logger_.info("customresourcedefinitions: " + name + " waits for " + std::to_string(left.items.size()) +
                 " custom resources to go");
    co_return false;
  }
  auto writing = write(name, true, terminating_condition("InstanceDeletionCompleted", "removed all instances"));
  co_await std::move(writing);
  co_return true;
}

asio::awaitable<void> CrdController::write(const std::string& name, bool status,
                                           std::function<void(json::object&)> change) {
  registry::WriteOptions options;
  if (status) options.subresource = "status";
  registry::UpdateFunction update = [&, change = std::move(change)](const json::object* current) -> json::object {
    if (!current) throw apierrors::ApiError(apierrors::not_found(std::string(kGroup), "customresourcedefinitions", name));
    json::object next = *current;
    registry::metadata_of(next).erase("resourceVersion");
    change(next);
    return next;
  };
  auto pending = crds_store_.update("", name, std::move(update), options);
  co_await std::move(pending);
}

}  // namespace kapi::apiextensions
