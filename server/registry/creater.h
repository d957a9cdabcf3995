#pragma once
// A resource served by create alone, whose answer is computed rather than stored (kube's rest.Creater with no
// registry Store behind it: SelfSubjectReview, SubjectAccessReview, SelfSubjectRulesReview, ...). The installer
// routes POST on its collection path here: the body, decoded and conformed to the kind, goes in; the object to
// answer 201 with comes out. Every other verb is 405, as kube answers a storage that implements only Creater.
#include "request/request_context.h"
#include "server/registry/resource.h"

#include <asio/awaitable.hpp>
#include <boost/json/object.hpp>

#include <functional>
#include <string>

namespace kapi::registry {

struct CreateRequest {
  request::UserInfo user;  // who asks (the impersonated user, when impersonating)
  std::string namespace_;  // the path's, for a namespaced resource
  boost::json::object object;
  bool dry_run = false;  // dryRun=All
};

struct Creater {
  ResourceDefinition definition;  // its verbs are {"create"}
  // Throws apierrors::ApiError with kube's Status to refuse (e.g. 422 for an invalid spec). An empty answer is a
  // Success Status (what kube's BindingREST returns).
  std::function<asio::awaitable<boost::json::object>(CreateRequest request)> create;
};

}  // namespace kapi::registry
