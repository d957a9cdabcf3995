#pragma once
// CEL values at run time (cel-go's common/types.Val and ref.Val).
//
// Contract:
// - Value is a small tagged value. Scalars are held inline; lists, maps and opaque values are shared immutable
//   objects behind interfaces, so an object from a request (a Boost.JSON document) can be read where it lies
//   instead of being converted: a List or Map implementation may wrap JSON and convert elements as they are read.
// - Errors are values (cel-go's types.Err): an operation on an error yields that error, except where CEL absorbs
//   it (`&&`, `||`, `?:`, comprehensions' loop conditions), which the interpreter implements.
// - Equality is CEL's heterogeneous equality (numbers compare across int, uint and double; values of different
//   types are unequal, never an error) — see equals() below; lists and maps may refine it (kube's set and map
//   lists compare without order).
// - Values are immutable once built and may be read from several threads.
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "cel/types.h"

namespace kapi::cel {

class Value;

struct Null {
  bool operator==(const Null&) const = default;
};

struct Bytes {
  std::string data;
  bool operator==(const Bytes&) const = default;
  auto operator<=>(const Bytes&) const = default;
};

// google.protobuf.Timestamp: seconds since the Unix epoch (UTC) and nanoseconds, as CEL's range requires
// (0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999999Z).
struct Timestamp {
  std::int64_t seconds = 0;
  std::int32_t nanos = 0;  // 0..999'999'999
  bool operator==(const Timestamp&) const = default;
  auto operator<=>(const Timestamp&) const = default;
};

// google.protobuf.Duration, held as cel-go holds it (time.Duration: int64 nanoseconds).
struct Duration {
  std::int64_t nanos = 0;
  bool operator==(const Duration&) const = default;
  auto operator<=>(const Duration&) const = default;
};

// A type as a value: what type(x) returns and what `int`, `list`, `google.protobuf.Timestamp` denote.
struct TypeValue {
  std::string name;  // cel-go's type name: "int", "list", "map", "google.protobuf.Timestamp", "kubernetes.Quantity"
  bool operator==(const TypeValue&) const = default;
};

enum class ErrorCode {
  kGeneric,
  kNoSuchOverload,     // "no such overload"
  kNoSuchKey,          // "no such key: k"
  kNoSuchField,        // "no such field"
  kDivideByZero,       // "division by zero" / "modulus by zero"
  kOverflow,           // "integer overflow", "range error"
  kInvalidArgument,
  kCostLimitExceeded,  // "operation cancelled: actual cost limit exceeded"
};

struct Error {
  ErrorCode code = ErrorCode::kGeneric;
  std::string message;
};

class List {
 public:
  virtual ~List() = default;
  virtual std::size_t size() const = 0;
  virtual Value at(std::size_t index) const = 0;  // index < size()
  // CEL equality of two lists; the default compares element by element. Kube's set and map lists override it.
  virtual bool equals(const List& other) const;
  // `a + b`; the default concatenates. Kube's set and map lists override it (union, merge by key).
  virtual std::shared_ptr<const List> concat(const std::shared_ptr<const List>& self,
                                             const std::shared_ptr<const List>& other) const;
};

class Map {
 public:
  virtual ~Map() = default;
  virtual std::size_t size() const = 0;
  // The value of key, with CEL's key rules (int, uint and double keys of equal numeric value are the same key).
  virtual std::optional<Value> find(const Value& key) const = 0;
  // Keys in iteration order: key_at(0..size()-1). Comprehensions over a map iterate its keys.
  virtual Value key_at(std::size_t index) const = 0;
  virtual bool equals(const Map& other) const;  // default: same keys, equal values
};

// A value of an extension type (kube's Quantity, IP, CIDR, URL, authorizer values, ...).
class Opaque {
 public:
  virtual ~Opaque() = default;
  virtual std::string_view type_name() const = 0;  // e.g. "kubernetes.Quantity"
  virtual bool equals(const Opaque& other) const = 0;
};

// optional_type(T): none, or some value.
struct OptionalValue {
  std::shared_ptr<const Value> value;  // null for optional.none()
  bool has_value() const { return value != nullptr; }
};

class Value {
 public:
  using Variant = std::variant<Null, bool, std::int64_t, std::uint64_t, double, std::string, Bytes, Timestamp,
                               Duration, TypeValue, std::shared_ptr<const List>, std::shared_ptr<const Map>,
                               OptionalValue, std::shared_ptr<const Opaque>, Error>;

  Value() = default;  // null
  Value(Null) {}
  Value(bool b) : v_(b) {}
  Value(std::int64_t i) : v_(i) {}
  Value(std::uint64_t u) : v_(u) {}
  Value(double d) : v_(d) {}
  Value(std::string s) : v_(std::move(s)) {}
  Value(const char* s) : v_(std::string(s)) {}
  Value(Bytes b) : v_(std::move(b)) {}
  Value(Timestamp t) : v_(t) {}
  Value(Duration d) : v_(d) {}
  Value(TypeValue t) : v_(std::move(t)) {}
  Value(std::shared_ptr<const List> l) : v_(std::move(l)) {}
  Value(std::shared_ptr<const Map> m) : v_(std::move(m)) {}
  Value(OptionalValue o) : v_(std::move(o)) {}
  Value(std::shared_ptr<const Opaque> o) : v_(std::move(o)) {}
  Value(Error e) : v_(std::move(e)) {}

  static Value error(ErrorCode code, std::string message) { return Value(Error{code, std::move(message)}); }
  static Value no_such_overload(std::string_view function);  // cel-go's "no such overload" error
  static Value list(std::vector<Value> elements);            // a list held in memory
  static Value map(std::vector<std::pair<Value, Value>> entries);  // a map held in memory (keys distinct)
  static Value optional_none() { return Value(OptionalValue{}); }
  static Value optional_of(Value v) { return Value(OptionalValue{std::make_shared<const Value>(std::move(v))}); }

  const Variant& variant() const { return v_; }
  template <typename T>
  bool is() const { return std::holds_alternative<T>(v_); }
  template <typename T>
  const T& get() const { return std::get<T>(v_); }
  template <typename T>
  const T* get_if() const { return std::get_if<T>(&v_); }

  bool is_error() const { return is<Error>(); }
  bool is_null() const { return is<Null>(); }
  const List* as_list() const;  // null unless a list
  const Map* as_map() const;    // null unless a map

  // The name of this value's type as type(x) reports it: "int", "list", "map", "null_type", an opaque's name.
  std::string type_name() const;

 private:
  Variant v_;
};

// CEL's heterogeneous equality: a bool, never an error (errors are handled by the caller before comparing).
bool equals(const Value& a, const Value& b);

// A readable rendering for messages and tests (cel-go's %v of a value): 1, 2u, 1.5, "s", b"\x01", [1, 2],
// {"k": 1}, null, google.protobuf.Timestamp{...} — exact spelling only matters where kube prints it.
std::string debug_string(const Value& value);

}  // namespace kapi::cel
