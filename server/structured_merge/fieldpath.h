#pragma once
// Field paths and sets of them, as sigs.k8s.io/structured-merge-diff/v4/fieldpath has them: what server-side apply
// records per manager in metadata.managedFields (FieldsV1) and compares between managers.
//
// A PathElement is one step into an object: a struct or map member by name ("f:spec"), a list item of an
// associative list by its key fields ("k:{\"containerPort\":80,\"protocol\":\"TCP\"}"), a set list item by its
// value ("v:\"a\""), or an atomic-by-position list item by index ("i:0", only for lists kube cannot key). A Set is a
// trie of them: the members (leaves that are set themselves) and the children (elements with a subtree); a
// path can be both (FieldsV1 writes that as the "." member).
//
// Values are plain data and thread-compatible: const use from any thread.
#include <boost/json/value.hpp>

#include <compare>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace kapi::structured_merge {

// One field of an associative list item's key: {"name": "http"}. A key's fields are kept sorted by name, as
// value.FieldList.Sort leaves them.
struct KeyField {
  std::string name;
  boost::json::value value;
};
using Key = std::vector<KeyField>;

// Orders JSON values as smd's value.Compare does (null, then by kind: floats and ints compared as numbers, strings,
// booleans, lists element-wise then by length, maps by sorted keys): the order of set items and key fields.
int compare_values(const boost::json::value& lhs, const boost::json::value& rhs);

class PathElement {
 public:
  struct Field { std::string name; };
  struct KeyItem { Key key; };
  struct ValueItem { boost::json::value value; };
  struct Index { int index; };

  static PathElement field(std::string name);
  static PathElement key(Key key);  // sorts the key's fields by name
  static PathElement value(boost::json::value value);
  static PathElement index(int index);

  bool is_field() const { return std::holds_alternative<Field>(element_); }
  bool is_key() const { return std::holds_alternative<KeyItem>(element_); }
  bool is_value() const { return std::holds_alternative<ValueItem>(element_); }
  bool is_index() const { return std::holds_alternative<Index>(element_); }
  const std::string& field_name() const { return std::get<Field>(element_).name; }
  const Key& key_fields() const { return std::get<KeyItem>(element_).key; }
  const boost::json::value& item_value() const { return std::get<ValueItem>(element_).value; }
  int item_index() const { return std::get<Index>(element_).index; }

  // smd's PathElement.Compare: fields before keys before values before indices, then within each kind.
  int compare(const PathElement& other) const;
  bool operator==(const PathElement& other) const { return compare(other) == 0; }
  bool operator<(const PathElement& other) const { return compare(other) < 0; }

  // The FieldsV1 member name: `f:name`, `k:{"a":1,"b":"x"}` (key fields in name order, Go's JSON),
  // `v:"x"` (the value as Go's JSON writes it), `i:3`.
  std::string serialize() const;
  // The inverse; std::nullopt for a name that is none of these (smd's DeserializePathElement error).
  static std::optional<PathElement> parse(std::string_view serialized);
  // For messages (conflicts, errors): `.name`, `[name="http",protocol="TCP"]`, `[="x"]`, `[3]`, as smd's
  // PathElement.String writes them.
  std::string to_string() const;

 private:
  explicit PathElement(std::variant<Field, KeyItem, ValueItem, Index> element) : element_(std::move(element)) {}
  std::variant<Field, KeyItem, ValueItem, Index> element_;
};

using Path = std::vector<PathElement>;

// A path as smd's Path.String writes it in conflict messages: ".spec.containers[name=\"c\"].image".
std::string path_to_string(const Path& path);
int compare_paths(const Path& lhs, const Path& rhs);

// A set of paths, as a trie (fieldpath.Set). Iteration and serialization are in PathElement order.
class Set {
 public:
  Set() = default;

  void insert(const Path& path);
  bool has(const Path& path) const;
  bool empty() const { return members_.empty() && children_.empty(); }
  std::size_t size() const;  // the number of paths, leaves and inner members alike

  Set union_with(const Set& other) const;
  Set intersection(const Set& other) const;
  // The paths of this set not in `other` (Set.Difference: a child set is kept minus other's child set).
  Set difference(const Set& other) const;
  // Like difference, but a path is also removed when `other` has one of its prefixes as a member
  // (Set.RecursiveDifference).
  Set recursive_difference(const Set& other) const;
  // Only the members that have no children (Set.Leaves).
  Set leaves() const;
  bool operator==(const Set& other) const;

  // Every path, in order.
  void for_each(const std::function<void(const Path&)>& visit) const;

  // The direct members (elements that are a path on their own) and the children (subtrees), in order.
  const std::vector<PathElement>& members() const { return members_; }
  const std::vector<std::pair<PathElement, Set>>& children() const { return children_; }
  // The subtree under `element`; nullptr when there is none.
  const Set* child(const PathElement& element) const;
  bool has_member(const PathElement& element) const;

  // FieldsV1, byte for byte as smd's Set.ToJSON writes it: {"f:metadata":{"f:labels":{".":{},"f:app":{}}}}.
  std::string to_fields_v1() const;
  // The same as a JSON object (member names as serialize() gives them, in the same order), for the fieldsV1 member
  // of a managedFields entry without writing and re-reading the text.
  boost::json::object to_fields_v1_object() const;
  // The inverse (Set.FromJSON); throws std::invalid_argument with smd's message on malformed input.
  static Set from_fields_v1(std::string_view json);
  static Set from_fields_v1(const boost::json::value& json);
  // A literal is text, not a JSON string value.
  static Set from_fields_v1(const char* json) { return from_fields_v1(std::string_view(json)); }

 private:
  Set* child_for_insert(const PathElement& element);
  static Set read_fields_v1(const boost::json::object& object, bool& is_member);
  std::vector<PathElement> members_;                    // sorted
  std::vector<std::pair<PathElement, Set>> children_;   // sorted by element
};

// A manager's fields at the apiVersion it used, and whether they were applied (fieldpath.VersionedSet).
struct VersionedSet {
  Set set;
  std::string api_version;
  bool applied = false;
  bool operator==(const VersionedSet&) const = default;
};

// Managers by their identifier (fieldpath.ManagedFields). The identifier is kube's encoded manager: a JSON object of
// manager, operation, apiVersion (for updates) and subresource (see fieldmanager/managed_fields.h).
using ManagedFields = std::map<std::string, VersionedSet>;

}  // namespace kapi::structured_merge
