// The generic registry Store over the embedded backend with a small test strategy, as kube's
// registry/generic/registry/store_test.go tests genericregistry.Store: generated names (and the retry when one is
// taken), finalizers and graceful deletion, preconditions, create-on-update, dry-run of every write and
// deletecollection.
#include "base/go_time.h"
#include "server/apierrors/errors.h"
#include "server/registry/object_meta.h"
#include "server/registry/predicate.h"
#include "server/registry/store.h"
#include "storage/embedded/store.h"
#include "tests/support/io_thread.h"
#include "tests/support/temp_dir.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <chrono>
#include <functional>

namespace kapi::registry::store_test {
namespace {

namespace json = boost::json;
using apierrors::ApiError;

// A namespaced widgets.example.com that tracks generations; the two switches are what kube's tests vary with
// their strategies (AllowCreateOnUpdate, a RESTGracefulDeleteStrategy, the default garbage collection policy).
class WidgetStrategy final : public Strategy {
 public:
  bool create_on_update = false;
  bool graceful = false;

  bool allow_create_on_update() const override { return create_on_update; }
  bool tracks_generation() const override { return true; }
  // Like pods' CheckGracefulDelete: the request's period, else 30 s.
  std::optional<std::int64_t> graceful_deletion_period(const json::object& /*current*/,
                                                      std::optional<std::int64_t> requested) const override {
    if (!graceful) return std::nullopt;
    return requested.value_or(30);
  }
  GarbageCollectionPolicy default_garbage_collection_policy() const override { return policy; }
  GarbageCollectionPolicy policy = GarbageCollectionPolicy::kDeleteDependents;
};

ResourceDefinition widgets() {
  ResourceDefinition definition;
  definition.group = "example.com";
  definition.version = "v1";
  definition.resource = "widgets";
  definition.kind = "Widget";
  definition.singular = "widget";
  return definition;
}

// The embedded store, except that the first `collisions` creates find their key taken: how a generated name that
// is already in use looks to the Store.
class CollidingStorage final : public storage::Interface {
 public:
  explicit CollidingStorage(storage::Interface& inner) : inner_(inner) {}
  int collisions = 0;
  int creates = 0;

  asio::awaitable<storage::KeyValue> create(std::string key, std::string value, storage::WriteOptions options) override {
    if (++creates <= collisions) throw storage::StorageError(storage::ErrorCode::KeyExists, key, "key exists");
    co_return co_await inner_.create(std::move(key), std::move(value), std::move(options));
  }
  asio::awaitable<storage::KeyValue> remove(std::string key, storage::PreconditionCheck preconditions) override {
    return inner_.remove(std::move(key), std::move(preconditions));
  }
  asio::awaitable<std::optional<storage::KeyValue>> get(std::string key, storage::GetOptions options) override {
    return inner_.get(std::move(key), std::move(options));
  }
  asio::awaitable<storage::ListResult> list(std::string key_prefix, storage::ListOptions options) override {
    return inner_.list(std::move(key_prefix), std::move(options));
  }
  asio::awaitable<storage::KeyValue> guaranteed_update(std::string key, bool ignore_not_found,
                                                       storage::PreconditionCheck preconditions,
                                                       storage::TryUpdate try_update,
                                                       storage::WriteOptions options) override {
    return inner_.guaranteed_update(std::move(key), ignore_not_found, std::move(preconditions), std::move(try_update),
                                    std::move(options));
  }
  asio::awaitable<std::unique_ptr<storage::WatchStream>> watch(std::string key, storage::WatchOptions options) override {
    return inner_.watch(std::move(key), std::move(options));
  }
  asio::awaitable<std::int64_t> count(std::string key_prefix) override { return inner_.count(std::move(key_prefix)); }
  asio::awaitable<storage::Revision> current_revision() override { return inner_.current_revision(); }
  asio::awaitable<void> request_watch_progress() override { return inner_.request_watch_progress(); }
  asio::awaitable<void> compact(storage::Revision revision) override { return inner_.compact(revision); }

 private:
  storage::Interface& inner_;
};

class StoreTest : public ::testing::Test {
 protected:
  StoreTest() {
    storage::embedded::Options options;
    options.data_dir = dir_.path() / "data";
    backend_ = storage::embedded::Store::open(std::move(options));
    storage_ = std::make_unique<CollidingStorage>(*backend_);
    store_ = std::make_unique<Store>(widgets(), strategy_, *storage_);
  }

  json::object create(json::object object, WriteOptions options = {}) {
    return parse(io_.run(store_->create("default", std::move(object), std::move(options))));
  }
  json::object get(const std::string& name) { return parse(io_.run(store_->get("default", name, "")).json); }
  bool exists(const std::string& name) {
    try {
      get(name);
      return true;
    } catch (const ApiError& error) {
      EXPECT_EQ(error.status().code, 404) << error.status().message;
      return false;
    }
  }
  std::vector<std::string> names() {
    std::vector<std::string> out;
    for (const ReadObject& item : io_.run(store_->list("default", ListRequest{})).items)
      out.emplace_back(meta_string(parse(item.json), "name"));
    return out;
  }
  // Stores what `change` makes of the current object (or of nothing, for a create-on-update); true when created.
  std::pair<json::object, bool> update(const std::string& name, std::function<json::object(const json::object*)> change,
                                       WriteOptions options = {}) {
    auto [stored, created] = io_.run(store_->update("default", name, std::move(change), std::move(options)));
    return {parse(stored), created};
  }
  json::object put(const std::string& name, std::function<void(json::object&)> change, WriteOptions options = {}) {
    return update(name, [change](const json::object* current) {
      json::object object = *current;
      change(object);
      return object;
    }, std::move(options)).first;
  }
  // As kube-apiserver with --enable-garbage-collector: DELETEs leave the collector its finalizers.
  void collect_garbage() { store_ = std::make_unique<Store>(widgets(), strategy_, *storage_, "/registry", true); }
  DeleteResult remove(const std::string& name, DeleteOptions options = {}) {
    return io_.run(store_->remove("default", name, std::move(options)));
  }
  // The Status a Store call fails with.
  template <typename Call>
  apierrors::Status failure(Call call) {
    try {
      call();
    } catch (const ApiError& error) {
      return error.status();
    }
    ADD_FAILURE() << "no ApiError";
    return {};
  }

  static json::object parse(std::string_view bytes) { return parse_json(bytes).as_object(); }

  test_support::TempDir dir_{"kapi-registry-store"};
  test_support::IoThread io_;
  std::unique_ptr<storage::embedded::Store> backend_;
  std::unique_ptr<CollidingStorage> storage_;
  std::shared_ptr<WidgetStrategy> strategy_ = std::make_shared<WidgetStrategy>();
  std::unique_ptr<Store> store_;
};

json::object widget(std::string_view name, json::object labels = {}) {
  json::object metadata{{"name", name}};
  if (!labels.empty()) metadata["labels"] = std::move(labels);
  return {{"metadata", std::move(metadata)}, {"spec", json::object{{"size", 1}}}};
}

json::object with_finalizer(json::object object) {
  object["metadata"].as_object()["finalizers"] = json::array{"example.com/keep"};
  return object;
}

const json::object& meta(const json::object& object) { return object.at("metadata").as_object(); }
std::string resource_version(const json::object& object) { return std::string(meta_string(object, "resourceVersion")); }

// --- create

TEST_F(StoreTest, CreateFillsTheMetadataTheStoreOwns) {
  json::object created = create(widget("a"));
  EXPECT_EQ(created.at("kind"), "Widget");
  EXPECT_EQ(created.at("apiVersion"), "example.com/v1");
  EXPECT_EQ(meta(created).at("namespace"), "default");
  EXPECT_EQ(meta_string(created, "uid").size(), 36u);
  EXPECT_FALSE(meta_string(created, "creationTimestamp").empty());
  EXPECT_EQ(meta(created).at("generation"), 1);
  EXPECT_FALSE(resource_version(created).empty());
  EXPECT_EQ(get("a"), created);
}

TEST_F(StoreTest, GenerateNameAppendsFiveCharactersOfKubesAlphabet) {
  json::object object = widget("");
  object["metadata"] = json::object{{"generateName", "w-"}};
  const std::string name(meta_string(create(object), "name"));
  ASSERT_EQ(name.size(), 7u) << name;
  EXPECT_TRUE(name.starts_with("w-"));
  EXPECT_EQ(name.substr(2).find_first_not_of("bcdfghjklmnpqrstvwxz2456789"), std::string::npos) << name;
  EXPECT_TRUE(exists(name));
}

TEST_F(StoreTest, AGeneratedNameThatIsTakenIsGeneratedAgain) {
  storage_->collisions = 7;
  json::object object = widget("");
  object["metadata"] = json::object{{"generateName", "w-"}};
  const std::string name(meta_string(create(object), "name"));
  EXPECT_EQ(storage_->creates, 8) << "kube's maxNameGenerationCreateAttempts";
  EXPECT_TRUE(exists(name));
}

TEST_F(StoreTest, AfterEightTakenNamesTheServerSaysItCouldNotGenerateOne) {
  storage_->collisions = 8;
  json::object object = widget("");
  object["metadata"] = json::object{{"generateName", "w-"}};
  apierrors::Status status = failure([&] { create(object); });
  EXPECT_EQ(storage_->creates, 8);
  EXPECT_EQ(status.code, 409);
  EXPECT_EQ(status.reason, "AlreadyExists");
  EXPECT_TRUE(status.message.starts_with("widgets.example.com \"w-")) << status.message;
  EXPECT_TRUE(status.message.ends_with("\" already exists, the server was not able to generate a unique name for "
                                       "the object")) << status.message;
  ASSERT_TRUE(status.details);
  EXPECT_EQ(status.details->retry_after_seconds, 1);
  EXPECT_TRUE(names().empty());
}

TEST_F(StoreTest, ANameTakenIsAlreadyExistsAndSaysWhenItsObjectIsBeingDeleted) {
  create(with_finalizer(widget("a")));
  apierrors::Status taken = failure([&] { create(widget("a")); });
  EXPECT_EQ(taken.code, 409);
  EXPECT_EQ(taken.reason, "AlreadyExists");
  EXPECT_EQ(taken.message, "widgets.example.com \"a\" already exists");

  remove("a");
  apierrors::Status leaving = failure([&] { create(widget("a")); });
  EXPECT_EQ(leaving.reason, "AlreadyExists");
  EXPECT_EQ(leaving.message, "object is being deleted: widgets.example.com \"a\" already exists");
}

// --- update, preconditions and create-on-update

TEST_F(StoreTest, UpdateBumpsTheGenerationOnlyForSpecChanges) {
  create(widget("a"));
  json::object labelled = put("a", [](json::object& o) { o["metadata"].as_object()["labels"] = json::object{{"x", "y"}}; });
  EXPECT_EQ(meta(labelled).at("generation"), 1);
  json::object resized = put("a", [](json::object& o) { o["spec"].as_object()["size"] = 2; });
  EXPECT_EQ(meta(resized).at("generation"), 2);
  EXPECT_NE(resource_version(resized), resource_version(labelled));
}

TEST_F(StoreTest, AStaleResourceVersionIsKubesOptimisticLockConflict) {
  json::object created = create(widget("a"));
  put("a", [](json::object& o) { o["spec"].as_object()["size"] = 2; });
  apierrors::Status status = failure([&] {
    update("a", [&](const json::object*) {
      json::object stale = created;
      stale["spec"].as_object()["size"] = 3;
      return stale;
    });
  });
  EXPECT_EQ(status.code, 409);
  EXPECT_EQ(status.reason, "Conflict");
  EXPECT_EQ(status.message, "Operation cannot be fulfilled on widgets.example.com \"a\": the object has been "
                            "modified; please apply your changes to the latest version and try again");
  ASSERT_TRUE(status.details);
  EXPECT_EQ(status.details->kind, "widgets");
  EXPECT_EQ(get("a").at("spec").at("size"), 2);
}

TEST_F(StoreTest, AnUpdateWithAnotherUidIsAConflict) {
  const json::object created = create(widget("a"));
  apierrors::Status status = failure([&] {
    put("a", [](json::object& o) { o["metadata"].as_object()["uid"] = "other"; });
  });
  EXPECT_EQ(status.code, 409);
  EXPECT_EQ(status.reason, "Conflict");
  EXPECT_EQ(status.message, "Operation cannot be fulfilled on widgets.example.com \"a\": StorageError: invalid object, "
                            "Code: 4, Key: /registry/widgets/default/a, ResourceVersion: 0, AdditionalErrorMsg: "
                            "Precondition failed: UID in precondition: other, UID in object meta: " +
                                std::string(meta_string(created, "uid")));
}

TEST_F(StoreTest, PutOfAMissingObjectIsNotFoundUnlessTheStrategyCreatesOnUpdate) {
  auto fresh = [](const json::object* current) {
    EXPECT_EQ(current, nullptr);
    return widget("a");
  };
  apierrors::Status status = failure([&] { update("a", fresh); });
  EXPECT_EQ(status.code, 404);
  EXPECT_EQ(status.message, "widgets.example.com \"a\" not found");
  EXPECT_FALSE(exists("a"));

  strategy_->create_on_update = true;
  auto [created, was_created] = update("a", fresh);
  EXPECT_TRUE(was_created);
  EXPECT_EQ(meta_string(created, "uid").size(), 36u);
  EXPECT_EQ(meta(created).at("generation"), 1);
  EXPECT_EQ(get("a"), created);
  EXPECT_FALSE(update("a", [](const json::object* current) { return *current; }).second);
}

// --- deletion: finalizers and graceful deletion

TEST_F(StoreTest, DeleteWithFinalizersOnlyMarksTheObject) {
  create(with_finalizer(widget("a")));
  DeleteResult marked = remove("a");
  EXPECT_FALSE(marked.deleted);
  json::object object = parse(marked.object);
  EXPECT_FALSE(meta_string(object, "deletionTimestamp").empty());
  EXPECT_EQ(meta(object).at("deletionGracePeriodSeconds"), 0);
  EXPECT_EQ(meta(object).at("generation"), 2) << "kube's markAsDeleting starts a new generation";
  EXPECT_EQ(get("a"), object);

  DeleteResult again = remove("a");
  EXPECT_FALSE(again.deleted);
  EXPECT_EQ(parse(again.object), object) << "a second DELETE changes nothing";
}

TEST_F(StoreTest, TheUpdateRemovingTheLastFinalizerDeletes) {
  json::object object = with_finalizer(widget("a"));
  object["metadata"].as_object()["finalizers"].as_array().push_back("example.com/other");
  create(object);
  remove("a");
  json::object one_left = put("a", [](json::object& o) { o["metadata"].as_object()["finalizers"] = json::array{"example.com/keep"}; });
  EXPECT_TRUE(exists("a"));
  EXPECT_EQ(meta(one_left).at("finalizers").as_array().size(), 1u);

  json::object finalized = put("a", [](json::object& o) { o["metadata"].as_object().erase("finalizers"); });
  EXPECT_FALSE(exists("a"));
  EXPECT_FALSE(meta(finalized).contains("finalizers")) << "the answer is the object as the update made it";
  EXPECT_EQ(resource_version(finalized), resource_version(one_left));
}

TEST_F(StoreTest, RemovingFinalizersOfAnObjectNotBeingDeletedKeepsIt) {
  create(with_finalizer(widget("a")));
  put("a", [](json::object& o) { o["metadata"].as_object().erase("finalizers"); });
  EXPECT_TRUE(exists("a"));
}

TEST_F(StoreTest, AGracefulStrategyMarksTheObjectItsGracePeriodAhead) {
  strategy_->graceful = true;
  create(widget("a"));
  DeleteResult marked = remove("a", {.grace_period_seconds = 60});
  EXPECT_FALSE(marked.deleted);
  EXPECT_EQ(meta(parse(marked.object)).at("deletionGracePeriodSeconds"), 60);
  // An update while the grace period runs does not delete (ShouldDeleteDuringUpdate): whoever runs it does.
  put("a", [](json::object& o) { o["metadata"].as_object()["labels"] = json::object{{"x", "y"}}; });
  EXPECT_TRUE(exists("a"));

  DeleteResult now = remove("a", {.grace_period_seconds = 0});
  EXPECT_TRUE(now.deleted);
  EXPECT_FALSE(exists("a"));

  create(widget("b"));
  EXPECT_TRUE(remove("b", {.grace_period_seconds = 0}).deleted) << "a zero grace period deletes at once";
}

// --- deletion: the garbage collector's finalizers (store.go's deletionFinalizersForGarbageCollection)

std::vector<std::string> finalizers(const json::object& object) {
  std::vector<std::string> names;
  if (const json::value* list = object.at("metadata").as_object().if_contains("finalizers"))
    for (const json::value& name : list->as_array()) names.emplace_back(name.as_string());
  return names;
}

TEST_F(StoreTest, ForegroundAndOrphanDeletionsLeaveTheCollectorItsFinalizer) {
  collect_garbage();
  create(widget("a"));
  DeleteResult foreground = remove("a", {.propagation_policy = "Foreground"});
  EXPECT_FALSE(foreground.deleted);
  json::object marked = parse(foreground.object);
  EXPECT_EQ(finalizers(marked), std::vector<std::string>{"foregroundDeletion"});
  EXPECT_FALSE(meta_string(marked, "deletionTimestamp").empty());
  EXPECT_EQ(meta(marked).at("deletionGracePeriodSeconds"), 0);
  EXPECT_EQ(meta(marked).at("generation"), 2);

  create(widget("b"));
  EXPECT_EQ(finalizers(parse(remove("b", {.propagation_policy = "Orphan"}).object)), std::vector<std::string>{"orphan"});
  create(widget("c"));
  EXPECT_EQ(finalizers(parse(remove("c", {.orphan_dependents = true}).object)), std::vector<std::string>{"orphan"});
  create(widget("d"));
  EXPECT_TRUE(remove("d", {.propagation_policy = "Background"}).deleted) << "the collector deletes dependents later";
}

TEST_F(StoreTest, TheCollectorsFinalizerJoinsTheObjectsOwn) {
  collect_garbage();
  create(with_finalizer(widget("a")));
  json::object marked = parse(remove("a", {.propagation_policy = "Foreground"}).object);
  EXPECT_EQ(finalizers(marked), (std::vector<std::string>{"example.com/keep", "foregroundDeletion"}));
  // A later DELETE may change the policy while the object waits: the orphan finalizer replaces the foreground one.
  marked = parse(remove("a", {.propagation_policy = "Orphan"}).object);
  EXPECT_EQ(finalizers(marked), (std::vector<std::string>{"example.com/keep", "orphan"}));
}

TEST_F(StoreTest, ABackgroundDeleteOfAnObjectWaitingToOrphanDeletesIt) {
  collect_garbage();
  create(widget("a"));
  remove("a", {.propagation_policy = "Orphan"});
  EXPECT_TRUE(remove("a", {.propagation_policy = "Background"}).deleted);
  EXPECT_FALSE(exists("a"));
}

TEST_F(StoreTest, AKindThatOrphansByDefaultDoesSoUnlessAsked) {
  collect_garbage();
  strategy_->policy = GarbageCollectionPolicy::kOrphanDependents;
  create(widget("a"));
  DeleteResult kept = remove("a");
  EXPECT_EQ(finalizers(parse(kept.object)), std::vector<std::string>{"orphan"});
  create(widget("b"));
  DeleteResult asked = remove("b", {.propagation_policy = "Background"});
  EXPECT_TRUE(asked.deleted);
}

TEST_F(StoreTest, WithoutTheCollectorNoFinalizerIsAdded) {
  create(widget("a"));
  EXPECT_TRUE(remove("a", {.propagation_policy = "Foreground"}).deleted);
  strategy_->policy = GarbageCollectionPolicy::kUnsupported;
  collect_garbage();
  create(widget("b"));
  EXPECT_TRUE(remove("b", {.propagation_policy = "Orphan"}).deleted) << "a kind without garbage collection";
}

TEST_F(StoreTest, ADryRunDeleteShowsTheMarkWithoutWritingIt) {
  collect_garbage();
  const json::object created = create(widget("a"));
  DeleteResult dry = remove("a", {.dry_run = true, .propagation_policy = "Foreground"});
  EXPECT_FALSE(dry.deleted);
  EXPECT_EQ(finalizers(parse(dry.object)), std::vector<std::string>{"foregroundDeletion"});
  EXPECT_EQ(get("a"), created);
}

TEST_F(StoreTest, AZeroGracePeriodMarksTheObjectThenDeletesIt) {
  strategy_->graceful = true;
  create(widget("a"));
  auto watch = io_.run(store_->watch("default", storage::WatchOptions{.resource_version = resource_version(get("a"))}));
  DeleteResult now = remove("a", {.grace_period_seconds = 0});
  EXPECT_TRUE(now.deleted);
  EXPECT_EQ(meta(parse(now.object)).at("deletionGracePeriodSeconds"), 0);
  // Watchers see the mark, then the deletion, as kube's Store writes them.
  auto first = io_.run(watch->next());
  auto second = io_.run(watch->next());
  ASSERT_TRUE(first && second);
  EXPECT_EQ(first->type, storage::WatchEventType::Modified);
  EXPECT_EQ(second->type, storage::WatchEventType::Deleted);
}

TEST_F(StoreTest, DeleteWithoutFinalizersDeletesAndAnswersWithTheObject) {
  const json::object created = create(widget("a"));
  DeleteResult deleted = remove("a");
  EXPECT_TRUE(deleted.deleted);
  EXPECT_EQ(deleted.uid, meta_string(created, "uid"));
  EXPECT_EQ(meta_string(parse(deleted.object), "name"), "a");
  EXPECT_FALSE(exists("a"));
  EXPECT_EQ(failure([&] { remove("a"); }).code, 404);
}

TEST_F(StoreTest, DeletePreconditionsAreCheckedWithKubesWording) {
  const json::object created = create(widget("a"));
  const std::string uid(meta_string(created, "uid"));
  apierrors::Status wrong_uid = failure([&] { remove("a", {.precondition_uid = "other"}); });
  EXPECT_EQ(wrong_uid.code, 409);
  EXPECT_EQ(wrong_uid.reason, "Conflict");
  // rest.BeforeDelete names the kind, not the resource.
  EXPECT_EQ(wrong_uid.message, "Operation cannot be fulfilled on Widget.example.com \"a\": the UID in the "
                               "precondition (other) does not match the UID in record (" + uid +
                               "). The object might have been deleted and then recreated");
  apierrors::Status wrong_version = failure([&] { remove("a", {.precondition_resource_version = "1"}); });
  EXPECT_EQ(wrong_version.code, 409);
  EXPECT_EQ(wrong_version.message, "Operation cannot be fulfilled on Widget.example.com \"a\": the ResourceVersion "
                                   "in the precondition (1) does not match the ResourceVersion in record (" +
                                   resource_version(created) + "). The object might have been modified");
  EXPECT_TRUE(exists("a"));

  EXPECT_TRUE(remove("a", {.precondition_uid = uid, .precondition_resource_version = resource_version(created)}).deleted);
  EXPECT_FALSE(exists("a"));
}

// --- dry run: everything but the write

TEST_F(StoreTest, DryRunCreateStoresNothing) {
  json::object answer = create(widget("a"), {.dry_run = true});
  EXPECT_EQ(meta_string(answer, "name"), "a");
  EXPECT_EQ(meta_string(answer, "uid").size(), 36u);
  EXPECT_EQ(meta(answer).at("generation"), 1);
  EXPECT_FALSE(exists("a"));

  json::object generated = widget("");
  generated["metadata"] = json::object{{"generateName", "w-"}};
  EXPECT_EQ(meta_string(create(generated, {.dry_run = true}), "name").size(), 7u);
  EXPECT_TRUE(names().empty());
  // and it is validated as a real one would be
  EXPECT_EQ(failure([&] { create(widget("Not_A_Name"), {.dry_run = true}); }).code, 422);
}

TEST_F(StoreTest, DryRunUpdateAndPatchAnswerTheChangeAndStoreNothing) {
  const json::object created = create(widget("a"));
  // A patch is an update whose function applies the patch to the current object.
  json::object answer = put("a", [](json::object& o) { o["spec"].as_object()["size"] = 5; }, {.dry_run = true});
  EXPECT_EQ(answer.at("spec").at("size"), 5);
  EXPECT_EQ(meta(answer).at("generation"), 2);
  EXPECT_EQ(resource_version(answer), resource_version(created));
  EXPECT_EQ(get("a"), created);

  strategy_->create_on_update = true;
  auto [new_one, was_created] = update("b", [](const json::object*) { return widget("b"); }, {.dry_run = true});
  EXPECT_TRUE(was_created);
  EXPECT_EQ(meta_string(new_one, "name"), "b");
  EXPECT_FALSE(exists("b"));
}

TEST_F(StoreTest, DryRunDeleteKeepsTheObjectUnmarked) {
  const json::object plain = create(widget("a"));
  DeleteResult deleted = remove("a", {.dry_run = true});
  EXPECT_TRUE(deleted.deleted);
  EXPECT_EQ(parse(deleted.object), plain);
  EXPECT_EQ(get("a"), plain);

  const json::object finalized = create(with_finalizer(widget("b")));
  DeleteResult marked = remove("b", {.dry_run = true});
  EXPECT_FALSE(marked.deleted);
  EXPECT_FALSE(meta_string(parse(marked.object), "deletionTimestamp").empty());
  EXPECT_EQ(get("b"), finalized);
  // The final update of a marked object is dry-run too: the object stays.
  remove("b");
  put("b", [](json::object& o) { o["metadata"].as_object().erase("finalizers"); }, {.dry_run = true});
  EXPECT_TRUE(exists("b"));
}

// --- deletecollection

TEST_F(StoreTest, DeleteCollectionDeletesWhatTheSelectorSelects) {
  create(widget("web-1", {{"app", "web"}}));
  create(widget("web-2", {{"app", "web"}}));
  create(widget("db", {{"app", "db"}}));
  create(with_finalizer(widget("web-kept", {{"app", "web"}})));

  ListRequest web{.predicate = make_predicate("app=web", "", *strategy_)};
  ObjectList listed = io_.run(store_->remove_collection("default", web, DeleteOptions{}));
  std::vector<std::string> answered;
  for (const ReadObject& item : listed.items) {
    json::object object = parse(item.json);
    answered.emplace_back(meta_string(object, "name"));
    EXPECT_TRUE(meta_string(object, "deletionTimestamp").empty()) << "kube answers with the list as selected";
  }
  EXPECT_EQ(answered, (std::vector<std::string>{"web-1", "web-2", "web-kept"}));
  EXPECT_GT(listed.revision, 0);
  EXPECT_EQ(names(), (std::vector<std::string>{"db", "web-kept"}));
  EXPECT_FALSE(meta_string(get("web-kept"), "deletionTimestamp").empty()) << "finalizers keep it, marked";
}

TEST_F(StoreTest, DryRunDeleteCollectionDeletesNothing) {
  create(widget("a", {{"app", "web"}}));
  create(with_finalizer(widget("b", {{"app", "web"}})));
  ObjectList listed = io_.run(store_->remove_collection("default", ListRequest{}, DeleteOptions{.dry_run = true}));
  EXPECT_EQ(listed.items.size(), 2u);
  EXPECT_EQ(names(), (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(meta_string(get("b"), "deletionTimestamp").empty());
}

}  // namespace
}  // namespace kapi::registry::store_test
