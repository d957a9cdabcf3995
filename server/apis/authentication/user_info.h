#pragma once
// authentication.k8s.io/v1 UserInfo as the reviews answer it (SelfSubjectReview's status.userInfo, TokenReview's
// status.user): Go's encoding, each field omitted when empty.
#include "request/request_context.h"

#include <boost/json.hpp>

namespace kapi::apis {

inline boost::json::object user_info_json(const request::UserInfo& user) {
  boost::json::object out;
  if (!user.name.empty()) out["username"] = user.name;
  if (!user.uid.empty()) out["uid"] = user.uid;
  if (!user.groups.empty()) out["groups"] = boost::json::value_from(user.groups);
  if (!user.extra.empty()) out["extra"] = boost::json::value_from(user.extra);
  return out;
}

}  // namespace kapi::apis
