#pragma once
// The managedFields of the scale subresource (k8s.io/apimachinery/pkg/util/managedfields/scalehandler.go): a /scale
// request sees, as autoscaling/v1 Scale's spec.replicas, the entries of the main resource that own its replicas
// field; what the request leaves in the Scale's managedFields goes back to the main resource's entries.
#include "server/structured_merge/fieldpath.h"

#include <boost/json/array.hpp>

#include <map>
#include <string>

namespace kapi::fieldmanager {

class ScaleHandler {
 public:
  // The replicas field of the main resource at each apiVersion ("apps/v1" → .spec.replicas). An empty path stands
  // for kube's nil one: a custom resource version without a scale subresource. Entries of versions not listed are
  // dropped.
  using ResourcePathMappings = std::map<std::string, structured_merge::Path>;

  // `parent_entries`: the main resource's metadata.managedFields; `group_version`: the version of the request
  // ("apps/v1").
  ScaleHandler(boost::json::array parent_entries, std::string group_version, ResourcePathMappings mappings);

  // ToSubresource: the Scale's entries (empty: none). Throws std::invalid_argument for undecodable entries.
  boost::json::array to_subresource() const;
  // ToParent: the main resource's entries once the Scale's are `scale_entries` (empty: none). Throws
  // std::invalid_argument for undecodable entries.
  boost::json::array to_parent(const boost::json::array& scale_entries) const;

 private:
  boost::json::array parent_entries_;
  std::string group_version_;
  ResourcePathMappings mappings_;
};

}  // namespace kapi::fieldmanager
