// Type unification, following cel-go's checker/types.go (internalIsAssignable, isValidTypeSubstitution,
// mostGeneral, substitute, the occurs check), checker/mapping.go and checker/format.go (FormatCELType).
// Recursion here follows the nesting of types, which the parser's depth limit and the declarations bound; the
// occurs check keeps binding chains acyclic.
#include "cel/checker/unify.h"

namespace kapi::cel::checker {
namespace {

bool is_type_param(const Type& t) { return t.kind() == TypeKind::kTypeParam; }

bool assignable(Substitutions& subs, const Type& from, const Type& to);

bool assignable_all(Substitutions& subs, const std::vector<Type>& from, const std::vector<Type>& to) {
  if (from.size() != to.size()) return false;
  for (std::size_t i = 0; i < from.size(); ++i) {
    if (!assignable(subs, from[i], to[i])) return false;
  }
  return true;
}

// cel-go's Type.IsAssignableType without a custom assignability function: same kind, name and arity, with
// parameters assignable in turn (dyn accepting anything); no type-parameter bindings are made here.
bool plainly_assignable(const Type& to, const Type& from) {
  if (is_dyn(to) || is_exact(to, from)) return true;
  if (to.kind() != from.kind() || to.name() != from.name() || to.parameters().size() != from.parameters().size()) {
    return false;
  }
  for (std::size_t i = 0; i < to.parameters().size(); ++i) {
    if (!plainly_assignable(to.parameters()[i], from.parameters()[i])) return false;
  }
  return true;
}

// The types null may be assigned to beyond dyn and null itself (cel-go keeps the legacy checker's nullness).
bool accepts_null(const Type& t) {
  switch (t.kind()) {
    case TypeKind::kOpaque:
    case TypeKind::kObject:
    case TypeKind::kDuration:
    case TypeKind::kTimestamp:
    case TypeKind::kNull: return true;
    default: return false;
  }
}

// Whether `t` occurs in `within`, directly or through bindings.
bool not_referenced_in(const Substitutions& subs, const Type& t, const Type& within) {
  if (is_exact(t, within)) return false;
  switch (within.kind()) {
    case TypeKind::kTypeParam: {
      const Type* bound = subs.find(within);
      return bound == nullptr || not_referenced_in(subs, t, *bound);
    }
    case TypeKind::kOpaque:
    case TypeKind::kList:
    case TypeKind::kMap:
    case TypeKind::kType:
      for (const Type& p : within.parameters()) {
        if (!not_referenced_in(subs, t, p)) return false;
      }
      return true;
    default: return true;
  }
}

struct SubstitutionCheck {
  bool valid = false;
  bool param_was_bound = false;
};

// Whether type parameter `param` (or what it is bound to) may stand for `t`, binding it if so.
SubstitutionCheck valid_substitution(Substitutions& subs, const Type& t, const Type& param) {
  if (t.kind() == param.kind() && is_exact(t, param)) return {true, true};
  if (const Type* bound_ptr = subs.find(param)) {
    Type bound = *bound_ptr;
    if (t.kind() == bound.kind() && is_exact(t, bound)) return {true, true};
    if (assignable(subs, t, bound)) {
      Type general = most_general(t, bound);
      if (not_referenced_in(subs, param, general)) subs.bind(param, std::move(general));
      return {true, true};
    }
    return {false, true};
  }
  if (not_referenced_in(subs, param, t)) {
    subs.bind(param, t);
    return {true, false};
  }
  return {false, false};
}

bool assignable(Substitutions& subs, const Type& from, const Type& to) {
  if (is_type_param(to)) {
    SubstitutionCheck check = valid_substitution(subs, from, to);
    if (check.valid) return true;
    if (check.param_was_bound) return false;
  }
  if (is_type_param(from)) return valid_substitution(subs, to, from).valid;
  if (is_dyn_or_error(from) || is_dyn_or_error(to)) return true;
  if (from.kind() == TypeKind::kNull) return accepts_null(to);
  if (to.kind() == TypeKind::kNull) return accepts_null(from);
  switch (from.kind()) {
    case TypeKind::kBool:
    case TypeKind::kBytes:
    case TypeKind::kDouble:
    case TypeKind::kInt:
    case TypeKind::kString:
    case TypeKind::kUint:
    case TypeKind::kDuration:
    case TypeKind::kTimestamp:
    case TypeKind::kObject: return plainly_assignable(to, from);
    case TypeKind::kType: return to.kind() == TypeKind::kType;
    case TypeKind::kOpaque:
    case TypeKind::kList:
    case TypeKind::kMap:
      return from.kind() == to.kind() && from.name() == to.name() &&
             assignable_all(subs, from.parameters(), to.parameters());
    default: return false;
  }
}

bool equal_or_less_specific(const Type& a, const Type& b) {
  if (is_dyn(a) || is_type_param(a)) return true;
  if (is_dyn(b) || is_type_param(b)) return false;
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case TypeKind::kOpaque:
    case TypeKind::kList:
    case TypeKind::kMap: {
      if (a.name() != b.name() || a.parameters().size() != b.parameters().size()) return false;
      for (std::size_t i = 0; i < a.parameters().size(); ++i) {
        if (!equal_or_less_specific(a.parameters()[i], b.parameters()[i])) return false;
      }
      return true;
    }
    case TypeKind::kType: return true;
    default: return is_exact(a, b);
  }
}

bool same_shape(const Type& a, const Type& b, bool compare_param_names) {
  if (a.kind() != b.kind() || a.parameters().size() != b.parameters().size()) return false;
  if ((compare_param_names || !is_type_param(a)) && a.name() != b.name()) return false;
  for (std::size_t i = 0; i < a.parameters().size(); ++i) {
    if (!same_shape(a.parameters()[i], b.parameters()[i], compare_param_names)) return false;
  }
  return true;
}

Type keep_hint(Type rebuilt, const Type& original) {
  if (auto hint = original.max_elements()) return rebuilt.with_max_elements(*hint);
  return rebuilt;
}

}  // namespace

const Type* Substitutions::find(const Type& type_param) const {
  if (!is_type_param(type_param)) return nullptr;
  auto it = bindings_.find(type_param.name());
  return it == bindings_.end() ? nullptr : &it->second;
}

void Substitutions::bind(const Type& type_param, Type to) {
  std::string name(type_param.name());
  auto it = bindings_.find(name);
  if (it == bindings_.end()) {
    journal_.push_back({name, std::nullopt});
    bindings_.emplace(std::move(name), std::move(to));
    return;
  }
  journal_.push_back({std::move(name), std::move(it->second)});
  it->second = std::move(to);
}

void Substitutions::rollback(std::size_t mark) {
  while (journal_.size() > mark) {
    Change& change = journal_.back();
    if (change.previous) {
      bindings_.insert_or_assign(change.name, std::move(*change.previous));
    } else {
      bindings_.erase(change.name);
    }
    journal_.pop_back();
  }
}

void Substitutions::commit(std::size_t mark) {
  // Only the outermost test may forget its journal: an enclosing one may still roll back past it.
  if (mark == 0) journal_.clear();
}

bool is_dyn(const Type& t) { return t.kind() == TypeKind::kDyn; }
bool is_error(const Type& t) { return t.kind() == TypeKind::kError; }
bool is_dyn_or_error(const Type& t) { return is_dyn(t) || is_error(t); }

bool is_exact(const Type& a, const Type& b) { return a == b; }

bool is_equivalent(const Type& a, const Type& b) {
  if (a.kind() == TypeKind::kObject || b.kind() == TypeKind::kObject) return a == b;
  return same_shape(a, b, false);
}

bool is_assignable(Substitutions& subs, const Type& from, const Type& to) {
  std::size_t mark = subs.mark();
  if (!assignable(subs, from, to)) {
    subs.rollback(mark);
    return false;
  }
  subs.commit(mark);
  return true;
}

bool is_assignable_list(Substitutions& subs, const std::vector<Type>& from, const std::vector<Type>& to) {
  std::size_t mark = subs.mark();
  if (!assignable_all(subs, from, to)) {
    subs.rollback(mark);
    return false;
  }
  subs.commit(mark);
  return true;
}

const Type& most_general(const Type& a, const Type& b) { return equal_or_less_specific(a, b) ? a : b; }

Type substitute(const Substitutions& subs, const Type& t, bool params_to_dyn) {
  if (const Type* bound = subs.find(t)) return substitute(subs, *bound, params_to_dyn);
  std::vector<Type> params;
  switch (t.kind()) {
    case TypeKind::kTypeParam: return params_to_dyn ? Type::dyn() : t;
    case TypeKind::kOpaque:
      for (const Type& p : t.parameters()) params.push_back(substitute(subs, p, params_to_dyn));
      return keep_hint(Type::opaque(std::string(t.name()), std::move(params)), t);
    case TypeKind::kList: return keep_hint(Type::list(substitute(subs, t.element(), params_to_dyn)), t);
    case TypeKind::kMap:
      return keep_hint(
          Type::map(substitute(subs, t.key(), params_to_dyn), substitute(subs, t.value(), params_to_dyn)), t);
    case TypeKind::kType:
      if (t.parameters().empty()) return t;
      return Type::type_of(substitute(subs, t.element(), params_to_dyn));
    default: return t;
  }
}

std::pair<Type, bool> unwrap_optional(const Type& t) {
  if (t.is_optional() && !t.parameters().empty()) return {t.element(), true};
  return {t, false};
}

std::string format_type(const Type& t) {
  switch (t.kind()) {
    case TypeKind::kDuration: return "duration";
    case TypeKind::kTimestamp: return "timestamp";
    case TypeKind::kError: return "!error!";
    case TypeKind::kNull: return "null";
    default: break;
  }
  std::string out(t.name());
  if (t.parameters().empty()) return out;
  out += '(';
  for (std::size_t i = 0; i < t.parameters().size(); ++i) {
    if (i > 0) out += ", ";
    out += format_type(t.parameters()[i]);
  }
  out += ')';
  return out;
}

}  // namespace kapi::cel::checker
