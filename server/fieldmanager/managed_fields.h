#pragma once
// metadata.managedFields as kube encodes and decodes it (k8s.io/apimachinery/pkg/util/managedfields/internal:
// managedfields.go, fields.go, manager.go): each entry's manager, operation, apiVersion, time, fieldsType FieldsV1,
// fieldsV1 and subresource, keyed by kube's manager identifier.
#include "server/structured_merge/fieldpath.h"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace kapi::fieldmanager {

// The decoded managedFields of one object (internal.Managed): fields by manager identifier, and when each manager
// last wrote ("2026-12-01T21:00:00Z"; absent when the entry had no time).
struct Managed {
  structured_merge::ManagedFields fields;
  std::map<std::string, std::string> times;
  bool operator==(const Managed&) const = default;
};

// The identifier of an entry (BuildManagerIdentifier): the entry without time, fieldsType and fieldsV1, as compact
// JSON with kube's member order: {"manager":"kubectl","operation":"Update","apiVersion":"v1"}. Apply entries have
// no apiVersion in it.
std::string manager_identifier(const boost::json::object& entry);
// The same from an entry's parts, without building the entry.
std::string manager_identifier(std::string_view manager, std::string_view operation, std::string_view api_version,
                               std::string_view subresource);

// DecodeManagedFields of an object's metadata.managedFields (absent: empty). Throws std::invalid_argument with
// kube's text ("failed to decode managed fields: ...") for a malformed one.
Managed decode_managed_fields(const boost::json::object& object);

// The entries kube would write for `managed` (encodeManagedFields + sortEncodedManagedFields), set as the object's
// metadata.managedFields; removes the member when there are none.
void set_managed_fields(boost::json::object& object, const Managed& managed);

// The metadata.managedFields member of `object`, if any ("omits them" versus "sends them empty" differ in kube).
const boost::json::array* managed_fields_of(const boost::json::object& object);

}  // namespace kapi::fieldmanager
