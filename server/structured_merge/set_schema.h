#pragma once
// Field sets read against the schema of the object they describe, as the Updater needs them
// (fieldpath.Set.EnsureNamedFieldsAreMembers, typed.ReconcileFieldSetWithSchema). Internal to structured_merge.
#include "server/structured_merge/fieldpath.h"
#include "server/structured_merge/schema.h"

#include <optional>

namespace kapi::structured_merge::detail {

// `set` plus every struct field it descends into as a member of its own: a set of "a.b.c" also holds "a" when "a"
// is a named field of the struct, but not "a.b" when "a" is a map. Removing such a set removes the structs that
// only held removed fields, which a set of leaves would leave behind empty.
Set ensure_named_fields_are_members(const Set& set, TypeRef type);

// A manager's set written when a map or list of the object (of type `type`) was granular, now that the schema says
// it is atomic: the manager owns the atomic value itself and nothing under it. std::nullopt when nothing changes.
// (Atomic to granular needs nothing: the manager keeps owning the whole value.)
std::optional<Set> reconcile_field_set_with_schema(const Set& set, TypeRef type);

}  // namespace kapi::structured_merge::detail
