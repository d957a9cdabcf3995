// kube's authz and authzSelectors libraries (k8s.io/apiserver/pkg/cel/library/authz.go): builder values that end
// in check(verb), which asks the server's Authorizer, and the Decision's accessors.
#include "cel/ext/authz.h"

#include "base/name_validation.h"
#include "cel/ext/ext_util.h"
#include "cel/ext/kube_types.h"
#include "cel/ext/libraries.h"

namespace kapi::cel::ext {
namespace {

struct AuthorizerState {
  std::shared_ptr<const Authorizer> authorizer;
  UserInfo user;
};

// The receiver-only values: they have functions, no fields, and kube compares none of them.
template <const std::string_view& kName>
class ReceiverOnly : public Opaque {
 public:
  std::string_view type_name() const override { return kName; }
  bool equals(const Opaque&) const override { return false; }
};

class AuthorizerValue final : public ReceiverOnly<kAuthorizerTypeName> {
 public:
  explicit AuthorizerValue(std::shared_ptr<const AuthorizerState> state) : state(std::move(state)) {}
  std::shared_ptr<const AuthorizerState> state;
};

class PathCheckValue final : public ReceiverOnly<kPathCheckTypeName> {
 public:
  PathCheckValue(std::shared_ptr<const AuthorizerState> state, std::string path)
      : state(std::move(state)), path(std::move(path)) {}
  std::shared_ptr<const AuthorizerState> state;
  std::string path;
};

class GroupCheckValue final : public ReceiverOnly<kGroupCheckTypeName> {
 public:
  GroupCheckValue(std::shared_ptr<const AuthorizerState> state, std::string group)
      : state(std::move(state)), group(std::move(group)) {}
  std::shared_ptr<const AuthorizerState> state;
  std::string group;
};

class ResourceCheckValue final : public ReceiverOnly<kResourceCheckTypeName> {
 public:
  std::shared_ptr<const AuthorizerState> state;
  std::string group, resource, subresource, namespace_, name, field_selector, label_selector;
};

class DecisionValue final : public ReceiverOnly<kDecisionTypeName> {
 public:
  explicit DecisionValue(AuthzDecision decision) : decision(std::move(decision)) {}
  AuthzDecision decision;
};

bool blank(const std::string& s) { return s.find_first_not_of(" \t\n\v\f\r") == std::string::npos; }

Value check_resource(const ResourceCheckValue& check, const std::string& verb) {
  AuthzAttributes attributes;
  attributes.user = check.state->user;
  attributes.verb = verb;
  attributes.resource_request = true;
  attributes.api_group = check.group;
  attributes.resource = check.resource;
  attributes.subresource = check.subresource;
  attributes.namespace_ = check.namespace_;
  attributes.name = check.name;
  attributes.field_selector = check.field_selector;
  attributes.label_selector = check.label_selector;
  return make_opaque<DecisionValue>(check.state->authorizer->authorize(attributes));
}

// A ResourceCheck with one field replaced (subresource, namespace, name, fieldSelector, labelSelector).
FunctionImpl with_field(const char* name, std::string ResourceCheckValue::*field) {
  return [name, field](std::span<const Value> args) -> Value {
    const auto* check = opaque_as<ResourceCheckValue>(args[0]);
    if (!check) return Value::no_such_overload(name);
    auto copy = std::make_shared<ResourceCheckValue>(*check);
    (*copy).*field = args[1].get<std::string>();
    return Value(std::shared_ptr<const Opaque>(std::move(copy)));
  };
}

template <typename T, typename F>
FunctionImpl on(const char* name, F f) {
  return [name, f](std::span<const Value> args) -> Value {
    const auto* v = opaque_as<T>(args[0]);
    if (!v) return Value::no_such_overload(name);
    return f(*v, args);
  };
}

// ServiceAccountInfo.UserInfo for a service account without pod or node claims.
UserInfo service_account_user(const std::string& namespace_, const std::string& name) {
  return UserInfo{"system:serviceaccount:" + namespace_ + ":" + name,
                  "",
                  {"system:serviceaccounts", "system:serviceaccounts:" + namespace_},
                  {}};
}

}  // namespace

Value authorizer_value(std::shared_ptr<const Authorizer> authorizer, UserInfo user) {
  return make_opaque<AuthorizerValue>(
      std::make_shared<const AuthorizerState>(AuthorizerState{std::move(authorizer), std::move(user)}));
}

Value request_resource_check(std::shared_ptr<const Authorizer> authorizer, UserInfo user, std::string group,
                             std::string resource, std::string subresource, std::string namespace_,
                             std::string name) {
  auto check = std::make_shared<ResourceCheckValue>();
  check->state = std::make_shared<const AuthorizerState>(AuthorizerState{std::move(authorizer), std::move(user)});
  check->group = std::move(group);
  check->resource = std::move(resource);
  check->subresource = std::move(subresource);
  check->namespace_ = std::move(namespace_);
  check->name = std::move(name);
  return Value(std::shared_ptr<const Opaque>(std::move(check)));
}

Library authz_library() {
  const Type authorizer = authorizer_type(), path = Type::opaque(std::string(kPathCheckTypeName)),
             group = Type::opaque(std::string(kGroupCheckTypeName)), resource = resource_check_type(),
             decision = Type::opaque(std::string(kDecisionTypeName)), s = Type::string_type(),
             b = Type::bool_type();
  Library lib{.name = "kubernetes.authz"};
  lib.types = {authorizer, path, group, resource, decision};
  lib.functions = {
      Function{"path", {member_overload("authorizer_path", {authorizer, s}, path,
                                        on<AuthorizerValue>("path", [](const AuthorizerValue& a, auto args) {
                                          const std::string& p = args[1].template get<std::string>();
                                          if (blank(p)) return error_value("path must not be empty");
                                          return make_opaque<PathCheckValue>(a.state, p);
                                        }))}},
      Function{"group", {member_overload("authorizer_group", {authorizer, s}, group,
                                         on<AuthorizerValue>("group", [](const AuthorizerValue& a, auto args) {
                                           return make_opaque<GroupCheckValue>(
                                               a.state, args[1].template get<std::string>());
                                         }))}},
      Function{"serviceAccount",
               {member_overload(
                   "authorizer_serviceaccount", {authorizer, s, s}, authorizer,
                   on<AuthorizerValue>("serviceAccount", [](const AuthorizerValue& a, auto args) {
                     const std::string& namespace_ = args[1].template get<std::string>();
                     const std::string& name = args[2].template get<std::string>();
                     if (!validation::is_dns1123_subdomain(name).empty())
                       return error_value("Invalid service account name");
                     if (!validation::is_dns1123_label(namespace_).empty())
                       return error_value("Invalid service account namespace");
                     return make_opaque<AuthorizerValue>(std::make_shared<const AuthorizerState>(
                         AuthorizerState{a.state->authorizer, service_account_user(namespace_, name)}));
                   }))}},
      Function{"resource", {member_overload("groupcheck_resource", {group, s}, resource,
                                            on<GroupCheckValue>("resource", [](const GroupCheckValue& g, auto args) {
                                              const std::string& r = args[1].template get<std::string>();
                                              if (blank(r)) return error_value("resource must not be empty");
                                              auto check = std::make_shared<ResourceCheckValue>();
                                              check->state = g.state;
                                              check->group = g.group;
                                              check->resource = r;
                                              return Value(std::shared_ptr<const Opaque>(std::move(check)));
                                            }))}},
      Function{"subresource", {member_overload("resourcecheck_subresource", {resource, s}, resource,
                                               with_field("subresource", &ResourceCheckValue::subresource))}},
      Function{"namespace", {member_overload("resourcecheck_namespace", {resource, s}, resource,
                                             with_field("namespace", &ResourceCheckValue::namespace_))}},
      Function{"name", {member_overload("resourcecheck_name", {resource, s}, resource,
                                        with_field("name", &ResourceCheckValue::name))}},
      Function{"check",
               {member_overload("pathcheck_check", {path, s}, decision,
                                on<PathCheckValue>("check",
                                                   [](const PathCheckValue& p, auto args) {
                                                     AuthzAttributes attributes;
                                                     attributes.user = p.state->user;
                                                     attributes.path = p.path;
                                                     attributes.verb = args[1].template get<std::string>();
                                                     return make_opaque<DecisionValue>(
                                                         p.state->authorizer->authorize(attributes));
                                                   })),
                member_overload("resourcecheck_check", {resource, s}, decision,
                                on<ResourceCheckValue>("check", [](const ResourceCheckValue& r, auto args) {
                                  return check_resource(r, args[1].template get<std::string>());
                                }))}},
      Function{"errored", {member_overload("decision_errored", {decision}, b,
                                           on<DecisionValue>("errored", [](const DecisionValue& d, auto) -> Value {
                                             return d.decision.error.has_value();
                                           }))}},
      Function{"error", {member_overload("decision_error", {decision}, s,
                                         on<DecisionValue>("error", [](const DecisionValue& d, auto) -> Value {
                                           return d.decision.error.value_or("");
                                         }))}},
      Function{"allowed", {member_overload("decision_allowed", {decision}, b,
                                           on<DecisionValue>("allowed", [](const DecisionValue& d, auto) -> Value {
                                             return d.decision.kind == AuthzDecision::Kind::kAllow;
                                           }))}},
      Function{"reason", {member_overload("decision_reason", {decision}, s,
                                          on<DecisionValue>("reason", [](const DecisionValue& d, auto) -> Value {
                                            return d.decision.reason;
                                          }))}},
  };
  return lib;
}

Library authz_selectors_library() {
  const Type resource = resource_check_type(), s = Type::string_type();
  Library lib{.name = "kubernetes.authzSelectors"};
  lib.types = {resource};
  lib.functions = {
      Function{"fieldSelector", {member_overload("authorizer_fieldselector", {resource, s}, resource,
                                                 with_field("fieldSelector", &ResourceCheckValue::field_selector))}},
      Function{"labelSelector", {member_overload("authorizer_labelselector", {resource, s}, resource,
                                                 with_field("labelSelector", &ResourceCheckValue::label_selector))}},
  };
  return lib;
}

}  // namespace kapi::cel::ext
