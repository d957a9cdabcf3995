// JSON documents as CEL values (what kube's unstructured objects become in cel-go: UnstructuredToVal's maps and
// lists), converted lazily, and CEL values back to JSON (cel-go's ConvertToNative to structpb.Value).
#include "cel/json.h"

#include <boost/json.hpp>

#include "base/base64.h"
#include "cel/stdlib/time_util.h"

namespace kapi::cel {
namespace {

class JsonList final : public List {
 public:
  JsonList(const boost::json::array& array, std::shared_ptr<const void> owner)
      : array_(array), owner_(std::move(owner)) {}
  std::size_t size() const override { return array_.size(); }
  Value at(std::size_t index) const override { return json_value_of(array_[index], owner_); }

 private:
  const boost::json::array& array_;
  std::shared_ptr<const void> owner_;
};

class JsonMap final : public Map {
 public:
  JsonMap(const boost::json::object& object, std::shared_ptr<const void> owner)
      : object_(object), owner_(std::move(owner)) {}
  std::size_t size() const override { return object_.size(); }
  std::optional<Value> find(const Value& key) const override {
    const auto* name = key.get_if<std::string>();
    if (!name) return std::nullopt;
    auto it = object_.find(*name);
    if (it == object_.end()) return std::nullopt;
    return json_value_of(it->value(), owner_);
  }
  Value key_at(std::size_t index) const override {
    return Value(std::string((object_.begin() + static_cast<std::ptrdiff_t>(index))->key()));
  }

 private:
  const boost::json::object& object_;
  std::shared_ptr<const void> owner_;
};

std::string map_key(const Value& key) {
  if (const auto* s = key.get_if<std::string>()) return *s;
  if (const auto* i = key.get_if<std::int64_t>()) return std::to_string(*i);
  if (const auto* u = key.get_if<std::uint64_t>()) return std::to_string(*u);
  if (const auto* b = key.get_if<bool>()) return *b ? "true" : "false";
  return debug_string(key);
}

}  // namespace

Value json_value_of(const boost::json::value& value, const std::shared_ptr<const void>& owner) {
  switch (value.kind()) {
    case boost::json::kind::null:
      return Value();
    case boost::json::kind::bool_:
      return Value(value.get_bool());
    case boost::json::kind::int64:
      return Value(value.get_int64());
    case boost::json::kind::uint64:
      return Value(value.get_uint64());
    case boost::json::kind::double_:
      return Value(value.get_double());
    case boost::json::kind::string:
      return Value(std::string(value.get_string()));
    case boost::json::kind::array:
      return Value(std::shared_ptr<const List>(std::make_shared<const JsonList>(value.get_array(), owner)));
    case boost::json::kind::object:
      return Value(std::shared_ptr<const Map>(std::make_shared<const JsonMap>(value.get_object(), owner)));
  }
  return Value();
}

Value value_of(std::shared_ptr<const boost::json::value> document) {
  const boost::json::value& root = *document;
  return json_value_of(root, document);
}

std::optional<boost::json::value> to_json(const Value& value) {
  struct Converter {
    std::optional<boost::json::value> operator()(const Null&) const { return boost::json::value(nullptr); }
    std::optional<boost::json::value> operator()(bool b) const { return boost::json::value(b); }
    std::optional<boost::json::value> operator()(std::int64_t i) const { return boost::json::value(i); }
    std::optional<boost::json::value> operator()(std::uint64_t u) const { return boost::json::value(u); }
    std::optional<boost::json::value> operator()(double d) const { return boost::json::value(d); }
    std::optional<boost::json::value> operator()(const std::string& s) const { return boost::json::value(s); }
    std::optional<boost::json::value> operator()(const Bytes& b) const {
      return boost::json::value(base::base64_encode(b.data));
    }
    std::optional<boost::json::value> operator()(const Timestamp& t) const {
      return boost::json::value(stdlib::timestamp_to_string(t));
    }
    std::optional<boost::json::value> operator()(const Duration& d) const {
      return boost::json::value(stdlib::duration_to_string(d));
    }
    std::optional<boost::json::value> operator()(const TypeValue& t) const { return boost::json::value(t.name); }
    std::optional<boost::json::value> operator()(const std::shared_ptr<const List>& l) const {
      boost::json::array array;
      array.reserve(l->size());
      for (std::size_t i = 0; i < l->size(); ++i) {
        std::optional<boost::json::value> element = to_json(l->at(i));
        if (!element) return std::nullopt;
        array.push_back(std::move(*element));
      }
      return boost::json::value(std::move(array));
    }
    std::optional<boost::json::value> operator()(const std::shared_ptr<const Map>& m) const {
      boost::json::object object;
      object.reserve(m->size());
      for (std::size_t i = 0; i < m->size(); ++i) {
        Value key = m->key_at(i);
        std::optional<Value> entry = m->find(key);
        if (!entry) continue;
        std::optional<boost::json::value> converted = to_json(*entry);
        if (!converted) return std::nullopt;
        object[map_key(key)] = std::move(*converted);
      }
      return boost::json::value(std::move(object));
    }
    std::optional<boost::json::value> operator()(const OptionalValue& o) const {
      if (!o.has_value()) return std::nullopt;
      return to_json(*o.value);
    }
    std::optional<boost::json::value> operator()(const std::shared_ptr<const Opaque>&) const { return std::nullopt; }
    std::optional<boost::json::value> operator()(const Error&) const { return std::nullopt; }
  };
  return std::visit(Converter{}, value.variant());
}

}  // namespace kapi::cel
