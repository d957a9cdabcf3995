#include "cel/value.h"

#include <cmath>
#include <cstdio>
#include <limits>

namespace kapi::cel {
namespace {

class VectorList final : public List {
 public:
  explicit VectorList(std::vector<Value> elements) : elements_(std::move(elements)) {}
  std::size_t size() const override { return elements_.size(); }
  Value at(std::size_t index) const override { return elements_[index]; }

 private:
  std::vector<Value> elements_;
};

class ConcatList final : public List {
 public:
  ConcatList(std::shared_ptr<const List> first, std::shared_ptr<const List> second)
      : first_(std::move(first)), second_(std::move(second)) {}
  std::size_t size() const override { return first_->size() + second_->size(); }
  Value at(std::size_t index) const override {
    std::size_t n = first_->size();
    return index < n ? first_->at(index) : second_->at(index - n);
  }

 private:
  std::shared_ptr<const List> first_, second_;
};

class VectorMap final : public Map {
 public:
  explicit VectorMap(std::vector<std::pair<Value, Value>> entries) : entries_(std::move(entries)) {}
  std::size_t size() const override { return entries_.size(); }
  std::optional<Value> find(const Value& key) const override {
    for (const auto& [k, v] : entries_) {
      if (cel::equals(k, key)) return v;
    }
    return std::nullopt;
  }
  Value key_at(std::size_t index) const override { return entries_[index].first; }

 private:
  std::vector<std::pair<Value, Value>> entries_;
};

// Numbers compare by value across int, uint and double (CEL's heterogeneous equality).
std::optional<bool> numeric_equals(const Value& a, const Value& b) {
  auto as_double = [](const Value& v) -> std::optional<long double> {
    if (auto i = v.get_if<std::int64_t>()) return static_cast<long double>(*i);
    if (auto u = v.get_if<std::uint64_t>()) return static_cast<long double>(*u);
    if (auto d = v.get_if<double>()) return static_cast<long double>(*d);
    return std::nullopt;
  };
  if (a.is<std::int64_t>() && b.is<std::uint64_t>()) {
    std::int64_t i = a.get<std::int64_t>();
    return i >= 0 && static_cast<std::uint64_t>(i) == b.get<std::uint64_t>();
  }
  if (a.is<std::uint64_t>() && b.is<std::int64_t>()) return numeric_equals(b, a);
  auto x = as_double(a), y = as_double(b);
  if (!x || !y) return std::nullopt;
  return *x == *y;
}

}  // namespace

bool List::equals(const List& other) const {
  if (size() != other.size()) return false;
  for (std::size_t i = 0; i < size(); ++i) {
    if (!cel::equals(at(i), other.at(i))) return false;
  }
  return true;
}

std::shared_ptr<const List> List::concat(const std::shared_ptr<const List>& self,
                                         const std::shared_ptr<const List>& other) const {
  if (other->size() == 0) return self;
  if (size() == 0) return other;
  return std::make_shared<const ConcatList>(self, other);
}

bool Map::equals(const Map& other) const {
  if (size() != other.size()) return false;
  for (std::size_t i = 0; i < size(); ++i) {
    Value key = key_at(i);
    std::optional<Value> mine = find(key);
    std::optional<Value> theirs = other.find(key);
    if (!mine || !theirs || !cel::equals(*mine, *theirs)) return false;
  }
  return true;
}

Value Value::no_such_overload(std::string_view function) {
  return error(ErrorCode::kNoSuchOverload, "no such overload: " + std::string(function));
}

Value Value::list(std::vector<Value> elements) {
  return Value(std::shared_ptr<const List>(std::make_shared<const VectorList>(std::move(elements))));
}

Value Value::map(std::vector<std::pair<Value, Value>> entries) {
  return Value(std::shared_ptr<const Map>(std::make_shared<const VectorMap>(std::move(entries))));
}

const List* Value::as_list() const {
  auto l = get_if<std::shared_ptr<const List>>();
  return l ? l->get() : nullptr;
}

const Map* Value::as_map() const {
  auto m = get_if<std::shared_ptr<const Map>>();
  return m ? m->get() : nullptr;
}

std::string Value::type_name() const {
  struct Namer {
    std::string operator()(const Null&) const { return "null_type"; }
    std::string operator()(bool) const { return "bool"; }
    std::string operator()(std::int64_t) const { return "int"; }
    std::string operator()(std::uint64_t) const { return "uint"; }
    std::string operator()(double) const { return "double"; }
    std::string operator()(const std::string&) const { return "string"; }
    std::string operator()(const Bytes&) const { return "bytes"; }
    std::string operator()(const Timestamp&) const { return "google.protobuf.Timestamp"; }
    std::string operator()(const Duration&) const { return "google.protobuf.Duration"; }
    std::string operator()(const TypeValue&) const { return "type"; }
    std::string operator()(const std::shared_ptr<const List>&) const { return "list"; }
    std::string operator()(const std::shared_ptr<const Map>&) const { return "map"; }
    std::string operator()(const OptionalValue&) const { return "optional_type"; }
    std::string operator()(const std::shared_ptr<const Opaque>& o) const { return std::string(o->type_name()); }
    std::string operator()(const Error&) const { return "*error*"; }
  };
  return std::visit(Namer{}, v_);
}

bool equals(const Value& a, const Value& b) {
  if (auto numeric = numeric_equals(a, b)) return *numeric;
  if (a.variant().index() != b.variant().index()) return false;
  if (auto l = a.as_list()) return l->equals(*b.as_list());
  if (auto m = a.as_map()) return m->equals(*b.as_map());
  if (auto o = a.get_if<std::shared_ptr<const Opaque>>()) {
    const auto& other = b.get<std::shared_ptr<const Opaque>>();
    return (*o)->type_name() == other->type_name() && (*o)->equals(*other);
  }
  if (auto o = a.get_if<OptionalValue>()) {
    const auto& other = b.get<OptionalValue>();
    if (o->has_value() != other.has_value()) return false;
    return !o->has_value() || equals(*o->value, *other.value);
  }
  if (a.is<Error>()) return false;
  return std::visit(
      [&b](const auto& x) -> bool {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, Null> || std::is_same_v<T, bool> || std::is_same_v<T, std::string> ||
                      std::is_same_v<T, Bytes> || std::is_same_v<T, Timestamp> || std::is_same_v<T, Duration> ||
                      std::is_same_v<T, TypeValue>) {
          return x == std::get<T>(b.variant());
        } else {
          return false;
        }
      },
      a.variant());
}

std::string debug_string(const Value& value) {
  struct Printer {
    std::string operator()(const Null&) const { return "null"; }
    std::string operator()(bool b) const { return b ? "true" : "false"; }
    std::string operator()(std::int64_t i) const { return std::to_string(i); }
    std::string operator()(std::uint64_t u) const { return std::to_string(u) + "u"; }
    std::string operator()(double d) const {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%g", d);
      return buf;
    }
    std::string operator()(const std::string& s) const { return "\"" + s + "\""; }
    std::string operator()(const Bytes& b) const { return "b\"" + b.data + "\""; }
    std::string operator()(const Timestamp& t) const {
      return "timestamp(" + std::to_string(t.seconds) + "s+" + std::to_string(t.nanos) + "ns)";
    }
    std::string operator()(const Duration& d) const { return "duration(" + std::to_string(d.nanos) + "ns)"; }
    std::string operator()(const TypeValue& t) const { return t.name; }
    std::string operator()(const std::shared_ptr<const List>& l) const {
      std::string out = "[";
      for (std::size_t i = 0; i < l->size(); ++i) out += (i ? ", " : "") + debug_string(l->at(i));
      return out + "]";
    }
    std::string operator()(const std::shared_ptr<const Map>& m) const {
      std::string out = "{";
      for (std::size_t i = 0; i < m->size(); ++i) {
        Value key = m->key_at(i);
        out += (i ? ", " : "") + debug_string(key) + ": " + debug_string(m->find(key).value_or(Value()));
      }
      return out + "}";
    }
    std::string operator()(const OptionalValue& o) const {
      return o.has_value() ? "optional(" + debug_string(*o.value) + ")" : "optional.none()";
    }
    std::string operator()(const std::shared_ptr<const Opaque>& o) const { return std::string(o->type_name()); }
    std::string operator()(const Error& e) const { return "error: " + e.message; }
  };
  return std::visit(Printer{}, value.variant());
}

}  // namespace kapi::cel
