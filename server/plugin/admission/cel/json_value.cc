// cel-go's native adapters of unstructured content (common/types: NewDynamicMap, NewDynamicList over
// map[string]interface{} and []interface{}), over Boost.JSON values.
#include "server/plugin/admission/cel/json_value.h"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <limits>

namespace kapi::admission::cel_runtime {
namespace {

namespace json = boost::json;

class JsonList final : public cel::List {
 public:
  JsonList(std::shared_ptr<const void> owner, const json::array& array) : owner_(std::move(owner)), array_(array) {}
  std::size_t size() const override { return array_.size(); }
  cel::Value at(std::size_t index) const override { return json_to_value(owner_, array_[index]); }

 private:
  std::shared_ptr<const void> owner_;
  const json::array& array_;
};

class JsonMap final : public cel::Map {
 public:
  JsonMap(std::shared_ptr<const void> owner, const json::object& object) : owner_(std::move(owner)), object_(object) {}
  std::size_t size() const override { return object_.size(); }
  std::optional<cel::Value> find(const cel::Value& key) const override {
    const std::string* name = key.get_if<std::string>();
    if (!name) return std::nullopt;
    const json::value* found = object_.if_contains(*name);
    if (!found) return std::nullopt;
    return json_to_value(owner_, *found);
  }
  cel::Value key_at(std::size_t index) const override {
    return cel::Value(std::string((object_.begin() + static_cast<std::ptrdiff_t>(index))->key()));
  }

 private:
  std::shared_ptr<const void> owner_;
  const json::object& object_;
};

}  // namespace

cel::Value json_to_value(std::shared_ptr<const void> owner, const json::value& value) {
  switch (value.kind()) {
    case json::kind::null: return cel::Value(cel::Null{});
    case json::kind::bool_: return cel::Value(value.get_bool());
    case json::kind::int64: return cel::Value(value.get_int64());
    case json::kind::uint64: {
      // Go's JSON decoding into interface{} gives int64 where it fits, float64 beyond.
      const std::uint64_t number = value.get_uint64();
      if (number <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
        return cel::Value(static_cast<std::int64_t>(number));
      return cel::Value(static_cast<double>(number));
    }
    case json::kind::double_: return cel::Value(value.get_double());
    case json::kind::string: return cel::Value(std::string(value.get_string()));
    case json::kind::array:
      return cel::Value(std::shared_ptr<const cel::List>(std::make_shared<JsonList>(std::move(owner), value.get_array())));
    case json::kind::object:
      return cel::Value(std::shared_ptr<const cel::Map>(std::make_shared<JsonMap>(std::move(owner), value.get_object())));
  }
  return cel::Value(cel::Null{});
}

cel::Value json_to_value(std::shared_ptr<const void> owner, const json::object& object) {
  return cel::Value(std::shared_ptr<const cel::Map>(std::make_shared<JsonMap>(std::move(owner), object)));
}

cel::Value owned_json_value(json::value document) {
  auto owner = std::make_shared<const json::value>(std::move(document));
  const json::value& root = *owner;
  return json_to_value(std::move(owner), root);
}

}  // namespace kapi::admission::cel_runtime
