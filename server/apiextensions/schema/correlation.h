#pragma once
// Old and new values of an update paired node by node, for ratcheting (apiserver/pkg/cel/common/equality.go
// CorrelatedObject and maplist.go): object fields by name, map-list items by their keys; other list items and
// fields the schema does not name have no old counterpart. A node counts as unchanged when its old and new values
// are deeply equal, compared once and remembered.
#include "server/apiextensions/schema/structural.h"

#include <boost/json/value.hpp>

#include <map>
#include <memory>
#include <optional>
#include <string>

namespace kapi::apiextensions::schema {

// The old item of a map list with the same key values as `item`, or null (MakeMapList(...).Get).
const boost::json::value* correlated_map_list_item(const Schema& list, const boost::json::array* old_items,
                                                   const boost::json::value& item);

class Correlation {
 public:
  Correlation(const boost::json::value* value, const boost::json::value* old, const Schema* schema)
      : value_(value), old_(old), schema_(schema) {}

  bool cached_deep_equal();
  // The child at `field` / `index` (null when it has no old counterpart); owned by this node.
  Correlation* key(const std::string& field);
  Correlation* index(std::size_t index);

 private:
  const boost::json::value* value_;
  const boost::json::value* old_;
  const Schema* schema_;
  std::optional<bool> equal_;
  std::map<std::string, std::unique_ptr<Correlation>, std::less<>> fields_;
  std::map<std::size_t, std::unique_ptr<Correlation>> items_;
};

}  // namespace kapi::apiextensions::schema
