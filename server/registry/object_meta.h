#pragma once
// The metadata the Store owns (uid, creationTimestamp, resourceVersion, generateName suffixes) and the one place
// that knows how stored bytes carry it. Objects are stored as JSON without metadata.resourceVersion (like
// kube-apiserver, whose versioner clears it before encoding); the store's mod revision is spliced back in on
// every read, so a list never re-parses its items.
#include "storage/interface.h"

#include <boost/json/object.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kapi::registry {

// The current time as metav1.Time writes it: RFC 3339, UTC, seconds ("2026-11-29T21:08:00Z").
std::string rfc3339_now();
// The 5 characters kube appends to metadata.generateName (utilrand.String over its consonant/digit alphabet).
std::string generate_name_suffix();

// The stored bytes with "resourceVersion":"<revision>" set in metadata.
std::string with_resource_version(std::string_view stored, storage::Revision revision);
// The same spliced onto the end of `out` without parsing; false (nothing appended) when `stored` has no
// `"metadata":{` to splice after. `stored` may be a fragment of an object, e.g. one without its opening brace.
bool append_with_resource_version(std::string& out, std::string_view stored, storage::Revision revision);

// Objects nest deeper than Boost.JSON's default of 32 levels; this is the bound every object parse uses.
inline constexpr std::size_t kMaxObjectDepth = 1000;
// Parses stored or sent JSON with that bound; throws boost::system::system_error when it is not JSON.
boost::json::value parse_json(std::string_view text);
// The same for stored bytes that should hold an object: std::nullopt when they do not (a watcher skips those).
std::optional<boost::json::object> parse_json_object(std::string_view text);

// metadata as an object, created when missing or not an object.
boost::json::object& metadata_of(boost::json::object& object);
// A string field of an object ("" when missing or not a string).
std::string_view string_field(const boost::json::object& object, std::string_view key);
// A string field of object.metadata.
std::string_view meta_string(const boost::json::object& object, std::string_view key);
// An integer field of object.metadata (generation, deletionGracePeriodSeconds); 0 when missing or not an integer.
std::int64_t meta_int(const boost::json::object& object, std::string_view key);
// The value at a field path ({"spec", "replicas"}), or nullptr when a step is missing or not an object.
const boost::json::value* value_at(const boost::json::object& object, const std::vector<std::string>& path);

}  // namespace kapi::registry
