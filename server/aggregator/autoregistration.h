#pragma once
// The local APIServices (kube-apiserver's autoregister controller with its apiServicesToRegister and the
// crdregistration controller): every group version the Kube API server and the API extensions server answer has
// an APIService without a service, so `kubectl get apiservices` lists them and the aggregator knows they are
// local. The built-in ones carry kube's priorities and the label automanaged=onstart; a CRD's group versions get
// priority 1000/100 and automanaged=true. An APIService without the label belongs to its user and is left alone.
#include "server/discovery/discovery.h"

#include <boost/json/object.hpp>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kapi::aggregator {

// The APIService kapi keeps for a local group version; none for a built-in group version kube registers none for
// (kube's makeAPIService skips those, so a CRD of that group version could not get stuck behind it).
std::optional<boost::json::object> local_apiservice(const discovery::LocalGroupVersion& local);

struct AutoRegistrationPlan {
  std::vector<boost::json::object> create;
  std::vector<boost::json::object> update;  // the stored object with the wanted spec, resourceVersion kept
  std::vector<std::string> remove;          // names
};

// What makes the stored APIServices (by name) match the local group versions.
AutoRegistrationPlan plan_autoregistration(const std::vector<discovery::LocalGroupVersion>& local,
                                           const std::map<std::string, boost::json::object>& stored);

}  // namespace kapi::aggregator
