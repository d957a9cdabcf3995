#pragma once
// A kind of example.com served at v1 and v2 and kept as v2, whose objects differ (v1's spec.<v1_field> is v2's
// spec.<v2_field>): what the tests of matchPolicy Equivalent convert between.
#include "server/admission/object_interfaces.h"

#include <boost/json.hpp>

#include <string>

namespace kapi::admission {

struct TwoVersions {
  ObjectInterfaces::Version v1, v2;
};

inline TwoVersions two_versions(const std::string& resource, const std::string& kind, const std::string& v1_field,
                                const std::string& v2_field) {
  auto renaming = [](std::string api_version, std::string from, std::string to) {
    return [api_version, from, to](boost::json::object object) {
      object["apiVersion"] = api_version;
      boost::json::object& spec = object["spec"].as_object();
      if (boost::json::value* value = spec.if_contains(from)) {
        spec[to] = *value;
        spec.erase(from);
      }
      return object;
    };
  };
  const std::string storage = "/registry/example.com/" + resource + "/";
  return {{.resource = {"example.com", "v1", resource},
           .kind = {"example.com", "v1", kind},
           .storage = storage,
           .subresources = {},
           .to_storage = renaming("example.com/v2", v1_field, v2_field),
           .from_storage = renaming("example.com/v1", v2_field, v1_field),
           .defaults = {}},
          {.resource = {"example.com", "v2", resource},
           .kind = {"example.com", "v2", kind},
           .storage = storage,
           .subresources = {},
           .to_storage = {},
           .from_storage = {},
           .defaults = {}}};
}

}  // namespace kapi::admission
