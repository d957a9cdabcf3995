#pragma once
// Type unification for the checker, following cel-go's checker/types.go and checker/mapping.go: type parameters
// bind through a substitution map as assignability is tested, and checked types are rewritten through it.
// Internal to cel/checker.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cel/types.h"

namespace kapi::cel::checker {

// Bindings of type parameters (by name) to types. A failed assignability test leaves the bindings as they were
// (cel-go tests on a copy of its mapping; a journal of changes to undo does the same without the copies).
class Substitutions {
 public:
  const Type* find(const Type& type_param) const;
  void bind(const Type& type_param, Type to);

  std::size_t mark() const { return journal_.size(); }
  void rollback(std::size_t mark);
  void commit(std::size_t mark);

 private:
  struct Change {
    std::string name;
    std::optional<Type> previous;
  };
  std::map<std::string, Type, std::less<>> bindings_;
  std::vector<Change> journal_;
};

bool is_dyn(const Type& t);
bool is_error(const Type& t);
bool is_dyn_or_error(const Type& t);

// Exact identity (cel-go's IsExactType): kind, name and parameters; size hints aside.
bool is_exact(const Type& a, const Type& b);

// cel-go's IsEquivalentType: as is_exact, but type parameters match whatever their names.
bool is_equivalent(const Type& a, const Type& b);

// Whether a value of type `from` may be used where `to` is expected, binding type parameters in `subs` on
// success (cel-go's isAssignable: the updated mapping, or nothing).
bool is_assignable(Substitutions& subs, const Type& from, const Type& to);
bool is_assignable_list(Substitutions& subs, const std::vector<Type>& from, const std::vector<Type>& to);

// The more general of two types known to unify (cel-go's mostGeneral).
const Type& most_general(const Type& a, const Type& b);

// Replaces bound type parameters by their bindings; unbound ones by dyn when params_to_dyn.
Type substitute(const Substitutions& subs, const Type& t, bool params_to_dyn);

// If t is optional_type(T): T and true; otherwise t and false.
std::pair<Type, bool> unwrap_optional(const Type& t);

// cel-go's FormatCELType, as its error messages print types ("timestamp", "null", "!error!", "list(int)").
std::string format_type(const Type& t);

}  // namespace kapi::cel::checker
