// The Set trie (smd's fieldpath/set.go) and its FieldsV1 text (serialize.go).
#include "server/structured_merge/fieldpath.h"

#include "server/structured_merge/fieldpath_internal.h"
#include "server/structured_merge/jsoniter_text.h"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <algorithm>
#include <iterator>
#include <stdexcept>

namespace kapi::structured_merge {
namespace {

namespace json = boost::json;

using Child = std::pair<PathElement, Set>;

bool element_less(const PathElement& a, const PathElement& b) { return a.compare(b) < 0; }
bool child_less(const Child& child, const PathElement& element) { return child.first.compare(element) < 0; }

std::vector<PathElement>::const_iterator find_member(const std::vector<PathElement>& members,
                                                     const PathElement& element) {
  auto found = std::lower_bound(members.begin(), members.end(), element, element_less);
  return found != members.end() && found->compare(element) == 0 ? found : members.end();
}

const Set* find_child(const std::vector<Child>& children, const PathElement& element) {
  auto found = std::lower_bound(children.begin(), children.end(), element, child_less);
  return found != children.end() && found->first.compare(element) == 0 ? &found->second : nullptr;
}

// The merge walks of PathElementSet: both inputs sorted, the output sorted.
std::vector<PathElement> members_union(const std::vector<PathElement>& a, const std::vector<PathElement>& b) {
  std::vector<PathElement> out;
  out.reserve(a.size() + b.size());
  std::set_union(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out), element_less);
  return out;
}

std::vector<PathElement> members_intersection(const std::vector<PathElement>& a, const std::vector<PathElement>& b) {
  std::vector<PathElement> out;
  std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out), element_less);
  return out;
}

std::vector<PathElement> members_difference(const std::vector<PathElement>& a, const std::vector<PathElement>& b) {
  std::vector<PathElement> out;
  out.reserve(a.size());
  std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out), element_less);
  return out;
}

std::invalid_argument fields_error(const std::string& message) { return std::invalid_argument(message); }

}  // namespace

void Set::insert(const Path& path) {
  if (path.empty()) return;  // the whole object: nobody owns it
  Set* level = this;
  for (std::size_t i = 0; i + 1 < path.size(); ++i) level = level->child_for_insert(path[i]);
  auto position = std::lower_bound(level->members_.begin(), level->members_.end(), path.back(), element_less);
  if (position == level->members_.end() || position->compare(path.back()) != 0) {
    level->members_.insert(position, path.back());
  }
}

Set* Set::child_for_insert(const PathElement& element) {
  auto position = std::lower_bound(children_.begin(), children_.end(), element, child_less);
  if (position == children_.end() || position->first.compare(element) != 0) {
    position = children_.emplace(position, element, Set());
  }
  return &position->second;
}

bool Set::has(const Path& path) const {
  if (path.empty()) return false;
  const Set* level = this;
  for (std::size_t i = 0; i + 1 < path.size(); ++i) {
    level = find_child(level->children_, path[i]);
    if (level == nullptr) return false;
  }
  return level->has_member(path.back());
}

std::size_t Set::size() const {
  std::size_t count = members_.size();
  for (const auto& [element, child] : children_) count += child.size();
  return count;
}

Set Set::union_with(const Set& other) const {
  Set out;
  out.members_ = members_union(members_, other.members_);
  out.children_.reserve(children_.size() + other.children_.size());
  auto a = children_.begin();
  auto b = other.children_.begin();
  while (a != children_.end() && b != other.children_.end()) {
    const int c = a->first.compare(b->first);
    if (c < 0) {
      out.children_.push_back(*a++);
    } else if (c > 0) {
      out.children_.push_back(*b++);
    } else {
      out.children_.emplace_back(a->first, a->second.union_with(b->second));
      ++a;
      ++b;
    }
  }
  out.children_.insert(out.children_.end(), a, children_.end());
  out.children_.insert(out.children_.end(), b, other.children_.end());
  return out;
}

Set Set::intersection(const Set& other) const {
  Set out;
  out.members_ = members_intersection(members_, other.members_);
  auto a = children_.begin();
  auto b = other.children_.begin();
  while (a != children_.end() && b != other.children_.end()) {
    const int c = a->first.compare(b->first);
    if (c < 0) {
      ++a;
    } else if (c > 0) {
      ++b;
    } else {
      Set both = a->second.intersection(b->second);
      if (!both.empty()) out.children_.emplace_back(a->first, std::move(both));
      ++a;
      ++b;
    }
  }
  return out;
}

Set Set::difference(const Set& other) const {
  Set out;
  out.members_ = members_difference(members_, other.members_);
  out.children_.reserve(children_.size());
  for (const auto& [element, child] : children_) {
    const Set* removed = find_child(other.children_, element);
    if (removed == nullptr) {
      out.children_.emplace_back(element, child);
      continue;
    }
    Set rest = child.difference(*removed);
    if (!rest.empty()) out.children_.emplace_back(element, std::move(rest));  // no empty nodes
  }
  return out;
}

Set Set::recursive_difference(const Set& other) const {
  Set out;
  out.members_ = members_difference(members_, other.members_);
  out.children_.reserve(children_.size());
  for (const auto& [element, child] : children_) {
    if (other.has_member(element)) continue;  // the whole subtree goes with its removed parent
    const Set* removed = find_child(other.children_, element);
    if (removed == nullptr) {
      out.children_.emplace_back(element, child);
      continue;
    }
    Set rest = child.recursive_difference(*removed);
    if (!rest.empty()) out.children_.emplace_back(element, std::move(rest));
  }
  return out;
}

Set Set::leaves() const {
  Set out;
  out.members_.reserve(members_.size());
  for (const PathElement& member : members_) {
    if (find_child(children_, member) == nullptr) out.members_.push_back(member);
  }
  out.children_.reserve(children_.size());
  for (const auto& [element, child] : children_) out.children_.emplace_back(element, child.leaves());
  return out;
}

// readIterV1: the set under one FieldsV1 object, and whether the object also names its parent as a member (a "."
// entry, or nothing known inside it at all). Entries come in element order when kube wrote them, so they are
// appended; anything else is inserted where it belongs.
Set Set::read_fields_v1(const json::object& object, bool& is_member) {
  Set set;
  bool any = false;
  for (const json::key_value_pair& entry : object) {
    if (entry.key() == ".") {
      is_member = true;
      continue;
    }
    detail::ParsedPathElement parsed = detail::parse_path_element(entry.key());
    if (parsed.unknown_type) continue;  // a later version's kind of element: dropped, as smd drops it
    if (!parsed.element) throw fields_error("parsing key as path element: " + parsed.error);
    const json::value& value = entry.value();
    if (!value.is_object() && !value.is_null()) {
      throw fields_error("ReadMapCB: expect { or n, but found " + std::string(1, json::serialize(value).front()));
    }
    bool child_is_member = false;
    Set grandchildren;
    if (value.is_object()) {
      grandchildren = read_fields_v1(value.get_object(), child_is_member);
    } else {
      child_is_member = true;  // null: a map without entries
    }
    if (child_is_member) {
      any = true;
      // The element goes on to the children too when it has a subtree: only then is it copied.
      PathElement member = grandchildren.empty() ? std::move(*parsed.element) : *parsed.element;
      if (set.members_.empty() || element_less(set.members_.back(), member)) {
        set.members_.push_back(std::move(member));
      } else if (!set.has_member(member)) {
        auto position = std::lower_bound(set.members_.begin(), set.members_.end(), member, element_less);
        set.members_.insert(position, std::move(member));
      }
    }
    if (!grandchildren.empty()) {
      any = true;
      if (set.children_.empty() || element_less(set.children_.back().first, *parsed.element)) {
        set.children_.emplace_back(std::move(*parsed.element), std::move(grandchildren));
      } else {
        *set.child_for_insert(*parsed.element) = std::move(grandchildren);  // a repeated entry replaces, as in smd
      }
    }
  }
  if (!any) is_member = true;
  return set;
}

bool Set::operator==(const Set& other) const {
  if (members_.size() != other.members_.size() || children_.size() != other.children_.size()) return false;
  for (std::size_t i = 0; i < members_.size(); ++i) {
    if (members_[i].compare(other.members_[i]) != 0) return false;
  }
  for (std::size_t i = 0; i < children_.size(); ++i) {
    if (children_[i].first.compare(other.children_[i].first) != 0) return false;
    if (!(children_[i].second == other.children_[i].second)) return false;
  }
  return true;
}

namespace {

// Set.Iterate: this level's members, then each child's paths (preorder), with one path buffer for the walk.
void for_each_under(const Set& set, Path& prefix, const std::function<void(const Path&)>& visit) {
  for (const PathElement& member : set.members()) {
    prefix.push_back(member);
    visit(prefix);
    prefix.pop_back();
  }
  for (const auto& [element, child] : set.children()) {
    prefix.push_back(element);
    for_each_under(child, prefix, visit);
    prefix.pop_back();
  }
}

void append_member_name(std::string& out, const PathElement& element) {
  if (element.is_field()) {  // most names: written straight in, without serialize's temporary
    out += "\"f:";
    detail::append_jsoniter_escaped(out, element.field_name());
    out += "\":";
    return;
  }
  detail::append_jsoniter_name(out, element.serialize());
  out += ':';
}

// emitContentsV1: members and children merged in element order; an element that is both is written once, its
// object starting with "." when it has anything else in it.
void emit_fields_v1(const Set& set, bool include_self, std::string& out) {
  bool first = true;
  auto separate = [&] {
    if (!first) out += ',';
    first = false;
  };
  if (include_self && !set.empty()) {
    separate();
    out += "\".\":{}";
  }
  const auto& members = set.members();
  const auto& children = set.children();
  auto m = members.begin();
  auto c = children.begin();
  while (m != members.end() || c != children.end()) {
    const int order = m == members.end() ? 1 : (c == children.end() ? -1 : m->compare(c->first));
    separate();
    if (order < 0) {
      append_member_name(out, *m++);
      out += "{}";
      continue;
    }
    append_member_name(out, c->first);
    out += '{';
    emit_fields_v1(c->second, order == 0, out);
    out += '}';
    if (order == 0) ++m;
    ++c;
  }
}

// emit_fields_v1's walk, building the JSON object instead of its text.
void build_fields_v1(const Set& set, bool include_self, json::object& out) {
  out.reserve(set.members().size() + set.children().size() + (include_self ? 1 : 0));
  if (include_self && !set.empty()) out.emplace(".", json::object());
  const auto& members = set.members();
  const auto& children = set.children();
  auto m = members.begin();
  auto c = children.begin();
  while (m != members.end() || c != children.end()) {
    const int order = m == members.end() ? 1 : (c == children.end() ? -1 : m->compare(c->first));
    if (order < 0) {
      out.emplace(m++->serialize(), json::object());
      continue;
    }
    json::object child;
    build_fields_v1(c->second, order == 0, child);
    out.emplace(c->first.serialize(), std::move(child));
    if (order == 0) ++m;
    ++c;
  }
}

}  // namespace

json::object Set::to_fields_v1_object() const {
  json::object out;
  build_fields_v1(*this, false, out);
  return out;
}

void Set::for_each(const std::function<void(const Path&)>& visit) const {
  Path prefix;
  for_each_under(*this, prefix, visit);
}

const Set* Set::child(const PathElement& element) const { return find_child(children_, element); }

bool Set::has_member(const PathElement& element) const { return find_member(members_, element) != members_.end(); }

std::string Set::to_fields_v1() const {
  std::string out = "{";
  emit_fields_v1(*this, false, out);
  out += '}';
  return out;
}

Set Set::from_fields_v1(std::string_view text) {
  json::parse_options options;
  options.max_depth = detail::kMaxFieldsDepth;
  options.allow_invalid_utf8 = true;
  json::error_code ec;
  json::value value = json::parse(text, ec, {}, options);
  if (ec) throw fields_error(ec.message());
  return from_fields_v1(value);
}

Set Set::from_fields_v1(const json::value& json) {
  if (json.is_null()) return Set();
  if (!json.is_object()) {
    throw fields_error("ReadMapCB: expect { or n, but found " + std::string(1, json::serialize(json).front()));
  }
  bool is_member = false;
  return read_fields_v1(json.get_object(), is_member);
}

}  // namespace kapi::structured_merge
