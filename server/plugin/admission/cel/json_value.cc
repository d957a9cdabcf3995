// The root of a json::object as a CEL map (cel-go's native map adapter over unstructured content); its members
// and everything below are cel/json.h's views.
#include "server/plugin/admission/cel/json_value.h"

#include "cel/json.h"

namespace kapi::admission::cel_runtime {
namespace {

namespace json = boost::json;

class ObjectView final : public cel::Map {
 public:
  ObjectView(std::shared_ptr<const void> owner, const json::object& object) : owner_(std::move(owner)), object_(object) {}
  std::size_t size() const override { return object_.size(); }
  std::optional<cel::Value> find(const cel::Value& key) const override {
    const std::string* name = key.get_if<std::string>();
    if (!name) return std::nullopt;
    const json::value* found = object_.if_contains(*name);
    if (!found) return std::nullopt;
    return cel::json_value_of(*found, owner_);
  }
  cel::Value key_at(std::size_t index) const override {
    return cel::Value(std::string((object_.begin() + static_cast<std::ptrdiff_t>(index))->key()));
  }

 private:
  std::shared_ptr<const void> owner_;
  const json::object& object_;
};

}  // namespace

cel::Value json_to_value(std::shared_ptr<const void> owner, const json::object& object) {
  return cel::Value(std::shared_ptr<const cel::Map>(std::make_shared<ObjectView>(std::move(owner), object)));
}

cel::Value owned_json_value(json::value document) {
  return cel::value_of(std::make_shared<const json::value>(std::move(document)));
}

}  // namespace kapi::admission::cel_runtime
