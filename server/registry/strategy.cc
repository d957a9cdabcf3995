#include "server/registry/strategy.h"

namespace kapi::registry {

asio::awaitable<Strategy::FinishWrite> Strategy::begin_write(boost::json::object& /*object*/,
                                                             const boost::json::object* /*old*/,
                                                             bool /*dry_run*/) const {
  co_return FinishWrite{};
}

asio::awaitable<void> Strategy::after_delete(std::string_view /*stored*/) const { co_return; }
namespace {

patch::MapPatchSchema object_meta_schema() {
  using patch::MapPatchSchema;
  return MapPatchSchema::object(
      "ObjectMeta",
      {{"labels", MapPatchSchema::map()},
       {"annotations", MapPatchSchema::map()},
       {"finalizers", MapPatchSchema::list(), {"merge", ""}},
       {"ownerReferences", MapPatchSchema::list(MapPatchSchema::object("OwnerReference", {})), {"merge", "uid"}}});
}

}  // namespace

patch::MapPatchSchema object_with_metadata(std::string type_name) {
  return patch::MapPatchSchema::object(std::move(type_name), {{"metadata", object_meta_schema()}});
}

const patch::PatchSchema& Strategy::patch_schema() const {
  static const patch::MapPatchSchema kSchema = object_with_metadata("");
  return kSchema;
}

}  // namespace kapi::registry
