#include "server/authentication/claim_mapper.h"

#include "base/go_url.h"
#include "cel/ext/kube_env.h"
#include "cel/json.h"
#include "cel/program.h"
#include "server/pki/openssl_handles.h"
#include "server/validation/domain_names.h"

#include <boost/json.hpp>
#include <openssl/err.h>
#include <openssl/pem.h>

#include <algorithm>
#include <set>

namespace kapi::authentication {
namespace {

namespace json = boost::json;
using validation::ErrorList;
using validation::Path;

// celconfig.PerCallLimit: no expression over a token's claims runs longer than kube lets any CEL call run.
constexpr std::uint64_t kPerCallCostLimit = 1'000'000;

// kube's authenticationcel environment: the base environment with `claims` (a JSON object) and `user`
// (authentication/v1 UserInfo as kube declares it).
std::shared_ptr<const cel::Env> claims_env() {
  cel::Env env = cel::ext::kube_base_env();
  env.add_variable("claims", cel::Type::map(cel::Type::string_type(), cel::Type::dyn()));
  return std::make_shared<const cel::Env>(std::move(env));
}

std::shared_ptr<const cel::Env> user_env() {
  auto user = std::make_shared<cel::ObjectType>();
  user->name = "kubernetes.UserInfo";
  user->fields.emplace("username", cel::Type::string_type());
  user->fields.emplace("uid", cel::Type::string_type());
  user->fields.emplace("groups", cel::Type::list(cel::Type::string_type()));
  user->fields.emplace("extra", cel::Type::map(cel::Type::string_type(), cel::Type::list(cel::Type::string_type())));
  cel::Env env = cel::ext::kube_base_env();
  env.add_variable("user", cel::Type::object(std::move(user)));
  return std::make_shared<const cel::Env>(std::move(env));
}

struct Expression {
  std::string text;
  std::string message;  // validation rules
  std::string key;      // extra mappings
  cel::Program program;
  std::shared_ptr<const cel::CheckedAst> ast;
};

// Whether the expression reads `operand.field` (or `operand.?field`): kube's hasSelectExp.
bool selects(const cel::Expr& expr, std::string_view operand, std::string_view field) {
  auto reads = [&](const std::unique_ptr<cel::Expr>& child) { return child && selects(*child, operand, field); };
  auto is_operand = [&](const cel::Expr& e) {
    const auto* ident = std::get_if<cel::IdentExpr>(&e.kind);
    return ident && ident->name == operand;
  };
  if (const auto* select = std::get_if<cel::SelectExpr>(&expr.kind)) {
    if (select->operand && is_operand(*select->operand) && select->field == field) return true;
    return reads(select->operand);
  }
  if (const auto* ident = std::get_if<cel::IdentExpr>(&expr.kind))  // the checker folds `claims.email` into one name
    return ident->name == std::string(operand) + "." + std::string(field);
  if (const auto* call = std::get_if<cel::CallExpr>(&expr.kind)) {
    if (!call->target && call->function == "_?._" && call->args.size() == 2 && is_operand(call->args[0])) {
      const auto* constant = std::get_if<cel::Constant>(&call->args[1].kind);
      const auto* name = constant ? std::get_if<std::string>(constant) : nullptr;
      if (name && *name == field) return true;
    }
    for (const auto& arg : call->args)
      if (selects(arg, operand, field)) return true;
    return reads(call->target);
  }
  if (const auto* list = std::get_if<cel::ListExpr>(&expr.kind))
    return std::any_of(list->elements.begin(), list->elements.end(), [&](const auto& e) { return selects(e, operand, field); });
  if (const auto* map = std::get_if<cel::MapExpr>(&expr.kind))
    return std::any_of(map->entries.begin(), map->entries.end(), [&](const auto& e) { return reads(e.key) || reads(e.value); });
  if (const auto* fold = std::get_if<cel::ComprehensionExpr>(&expr.kind))
    return reads(fold->iter_range) || reads(fold->accu_init) || reads(fold->loop_condition) || reads(fold->loop_step) ||
           reads(fold->result);
  return false;
}

// kube's compiler: "compilation failed: <issues>", then the result type (`dyn` passes for "any").
std::optional<Expression> compile_expression(const std::shared_ptr<const cel::Env>& env, const std::string& text,
                                             bool must_be_bool, const Path& path, ErrorList& errors) {
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) {
    errors.push_back(validation::required(path, "expression is not specified"));
    return std::nullopt;
  }
  cel::CheckResult checked = cel::ext::compile_kube(*env, text);
  if (!checked.ast) {
    errors.push_back(validation::invalid(path, text, "compilation failed: " + checked.message));
    return std::nullopt;
  }
  if (must_be_bool && checked.ast->result_type().kind() != cel::TypeKind::kBool) {
    errors.push_back(validation::invalid(path, text, "must evaluate to bool"));
    return std::nullopt;
  }
  auto ast = std::make_shared<const cel::CheckedAst>(std::move(*checked.ast));
  return Expression{text, {}, {}, cel::Program::plan(env, ast), ast};
}

std::string quoted_list(const std::vector<std::string>& items) {
  std::string out = "[";
  for (const auto& item : items) out += (out.size() > 1 ? " " : "") + item;
  return out + "]";
}

// kube's validateURL, over Go's url.Parse (base/go_url.h) and its error text.
void validate_url(const std::string& url, const std::set<std::string>& disallowed, const Path& path, ErrorList& errors) {
  if (disallowed.count(url))
    errors.push_back(validation::invalid(path, url, "URL must not overlap with disallowed issuers: " +
                                                        quoted_list({disallowed.begin(), disallowed.end()})));
  auto parsed = base::parse_go_url(url);
  if (const auto* error = std::get_if<base::GoUrlError>(&parsed)) {
    errors.push_back(validation::invalid(path, url, error->message));
    return;
  }
  const auto& u = std::get<base::GoUrl>(parsed);
  if (u.scheme != "https") errors.push_back(validation::invalid(path, url, "URL scheme must be https"));
  if (u.has_user) errors.push_back(validation::invalid(path, url, "URL must not contain a username or password"));
  if (!u.raw_query.empty()) errors.push_back(validation::invalid(path, url, "URL must not contain a query"));
  if (!u.fragment.empty()) errors.push_back(validation::invalid(path, url, "URL must not contain a fragment"));
}

// cert.NewPoolFromBytes succeeds when the PEM holds at least one certificate.
bool holds_certificate(std::string_view pem) {
  pki::BioPtr bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  pki::X509Ptr certificate(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
  ERR_clear_error();
  return certificate != nullptr;
}

void validate_issuer(const JwtIssuer& issuer, const std::set<std::string>& disallowed, const Path& path,
                     ErrorList& errors) {
  if (issuer.url.empty()) errors.push_back(validation::required(path.child("url")));
  else validate_url(issuer.url, disallowed, path.child("url"), errors);
  if (!issuer.discovery_url.empty()) {
    auto trimmed = [](std::string url) {
      while (!url.empty() && url.back() == '/') url.pop_back();
      return url;
    };
    if (!issuer.url.empty() && trimmed(issuer.url) == trimmed(issuer.discovery_url))
      errors.push_back(validation::invalid(path.child("discoveryURL"), issuer.discovery_url,
                                           "discoveryURL must be different from URL"));
    validate_url(issuer.discovery_url, {}, path.child("discoveryURL"), errors);
  }
  const Path audiences = path.child("audiences");
  if (issuer.audiences.empty()) {
    errors.push_back(validation::required(audiences, "at least one " + audiences.str() + " is required"));
  } else {
    std::set<std::string> seen;
    for (std::size_t i = 0; i < issuer.audiences.size(); ++i) {
      if (issuer.audiences[i].empty()) errors.push_back(validation::required(audiences.index(i)));
      if (!seen.insert(issuer.audiences[i]).second) errors.push_back(validation::duplicate(audiences.index(i), issuer.audiences[i]));
    }
    const std::string& policy = issuer.audience_match_policy;
    if (issuer.audiences.size() > 1 && policy != "MatchAny")
      errors.push_back(validation::invalid(path.child("audienceMatchPolicy"), policy,
                                           "audienceMatchPolicy must be MatchAny for multiple audiences"));
    if (issuer.audiences.size() == 1 && !policy.empty() && policy != "MatchAny")
      errors.push_back(validation::invalid(path.child("audienceMatchPolicy"), policy,
                                           "audienceMatchPolicy must be empty or MatchAny for single audience"));
  }
  if (!issuer.certificate_authority.empty() && !holds_certificate(issuer.certificate_authority))
    errors.push_back(validation::invalid(path.child("certificateAuthority"), "<omitted>",
                                         "data does not contain any valid RSA or ECDSA certificates"));
}

bool is_kubernetes_domain(const std::string& key) {
  const auto slash = key.find('/');
  if (slash == std::string::npos) return false;
  const std::string domain = key.substr(0, slash);
  return domain == "kubernetes.io" || domain.ends_with(".kubernetes.io") || domain == "k8s.io" || domain.ends_with(".k8s.io");
}

}  // namespace

struct ClaimMapper::Compiled {
  JwtAuthenticatorConfig config;
  std::optional<Expression> username, groups, uid;
  std::vector<Expression> extra, claim_rules, user_rules;
};

ClaimMapper ClaimMapper::compile(const JwtAuthenticatorConfig& config, const Path& path, ErrorList& errors) {
  static const auto claims = claims_env();  // immutable once made
  static const auto user = user_env();
  auto compiled = std::make_shared<Compiled>();
  compiled->config = config;
  bool uses_email = false, uses_email_verified = false;
  auto note_email_verified = [&](const Expression& e) {
    uses_email_verified = uses_email_verified || selects(e.ast->root, "claims", "email_verified");
  };

  const Path rules = path.child("claimValidationRules");
  std::set<std::string> seen_claims, seen_expressions;
  for (std::size_t i = 0; i < config.claim_validation_rules.size(); ++i) {
    const auto& rule = config.claim_validation_rules[i];
    const Path at = rules.index(i);
    if (!rule.claim.empty() && !rule.expression.empty()) {
      errors.push_back(validation::invalid(at, rule.claim, "claim and expression can't both be set"));
    } else if (rule.claim.empty() && rule.expression.empty()) {
      errors.push_back(validation::required(at, "claim or expression is required"));
    } else if (!rule.claim.empty()) {
      if (!rule.message.empty())
        errors.push_back(validation::invalid(at.child("message"), rule.message, "may not be specified when claim is set"));
      if (!seen_claims.insert(rule.claim).second) errors.push_back(validation::duplicate(at.child("claim"), rule.claim));
    } else {
      if (!rule.required_value.empty())
        errors.push_back(validation::invalid(at.child("requiredValue"), rule.required_value,
                                             "may not be specified when expression is set"));
      if (!seen_expressions.insert(rule.expression).second) {
        errors.push_back(validation::duplicate(at.child("expression"), rule.expression));
        continue;
      }
      if (auto e = compile_expression(claims, rule.expression, true, at.child("expression"), errors)) {
        e->message = rule.message;
        note_email_verified(*e);
        compiled->claim_rules.push_back(std::move(*e));
      }
    }
  }

  const Path mappings = path.child("claimMappings");
  auto prefixed = [&](const PrefixedClaimOrExpression& mapping, const Path& at, bool required) -> std::optional<Expression> {
    if (!mapping.expression.empty() && !mapping.claim.empty()) {
      errors.push_back(validation::invalid(at, "", "claim and expression can't both be set"));
    } else if (mapping.expression.empty() && mapping.claim.empty() && required) {
      errors.push_back(validation::required(at, "claim or expression is required"));
    } else if (!mapping.expression.empty()) {
      if (mapping.prefix)
        errors.push_back(validation::invalid(at.child("prefix"), *mapping.prefix, "may not be specified when expression is set"));
      return compile_expression(claims, mapping.expression, false, at.child("expression"), errors);
    } else if (!mapping.claim.empty() && !mapping.prefix) {
      errors.push_back(validation::required(at.child("prefix"), "prefix is required when claim is set. It can be set "
                                                                "to an empty string to disable prefixing"));
    }
    return std::nullopt;
  };
  compiled->username = prefixed(config.claim_mappings.username, mappings.child("username"), true);
  if (compiled->username) {
    uses_email = selects(compiled->username->ast->root, "claims", "email");
    note_email_verified(*compiled->username);
  }
  compiled->groups = prefixed(config.claim_mappings.groups, mappings.child("groups"), false);
  const auto& uid = config.claim_mappings.uid;
  if (!uid.claim.empty() && !uid.expression.empty())
    errors.push_back(validation::invalid(mappings.child("uid"), "", "claim and expression can't both be set"));
  else if (!uid.expression.empty())
    compiled->uid = compile_expression(claims, uid.expression, false, mappings.child("uid").child("expression"), errors);

  std::set<std::string> seen_keys;
  for (std::size_t i = 0; i < config.claim_mappings.extra.size(); ++i) {
    const auto& mapping = config.claim_mappings.extra[i];
    const Path at = mappings.child("extra").index(i);
    for (auto& error : validation::is_domain_prefixed_path(at.child("key"), mapping.key)) errors.push_back(std::move(error));
    std::string lower = mapping.key;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (lower != mapping.key) errors.push_back(validation::invalid(at.child("key"), mapping.key, "must be lowercase"));
    if (is_kubernetes_domain(mapping.key))
      errors.push_back(validation::invalid(at.child("key"), mapping.key,
                                           "k8s.io, kubernetes.io and their subdomains are reserved for Kubernetes use"));
    if (!seen_keys.insert(mapping.key).second) {
      errors.push_back(validation::duplicate(at.child("key"), mapping.key));
      continue;
    }
    if (mapping.value_expression.empty()) {
      errors.push_back(validation::required(at.child("valueExpression")));
      continue;
    }
    if (auto e = compile_expression(claims, mapping.value_expression, false, at.child("valueExpression"), errors)) {
      e->key = mapping.key;
      note_email_verified(*e);
      compiled->extra.push_back(std::move(*e));
    }
  }
  if (uses_email && !uses_email_verified)
    errors.push_back(validation::invalid(
        mappings.child("username").child("expression"), config.claim_mappings.username.expression,
        "claims.email_verified must be used in claimMappings.username.expression or claimMappings.extra[*].valueExpression "
        "or claimValidationRules[*].expression when claims.email is used in claimMappings.username.expression"));

  std::set<std::string> seen_user_rules;
  for (std::size_t i = 0; i < config.user_validation_rules.size(); ++i) {
    const auto& rule = config.user_validation_rules[i];
    const Path at = path.child("userValidationRules").index(i).child("expression");
    if (rule.expression.empty()) {
      errors.push_back(validation::required(at));
      continue;
    }
    if (!seen_user_rules.insert(rule.expression).second) {
      errors.push_back(validation::duplicate(at, rule.expression));
      continue;
    }
    if (auto e = compile_expression(user, rule.expression, true, at, errors)) {
      e->message = rule.message;
      compiled->user_rules.push_back(std::move(*e));
    }
  }
  ClaimMapper mapper;
  mapper.compiled_ = std::move(compiled);
  return mapper;
}

namespace {

// Go's encoding/json names a JSON value's type so in its unmarshal errors.
std::string json_type_name(const json::value& value) {
  if (value.is_string()) return "string";
  if (value.is_bool()) return "bool";
  if (value.is_number()) return "number";
  if (value.is_array()) return "array";
  if (value.is_object()) return "object";
  return "null";
}

// kube's claims.unmarshalClaim into a string: "claim not present", or json's type error. A JSON null leaves Go's
// string empty.
std::optional<std::string> claim_as_string(const json::object& claims, const std::string& name, std::string& error) {
  const json::value* value = claims.if_contains(name);
  if (!value) {
    error = "claim not present";
    return std::nullopt;
  }
  if (value->is_null()) return std::string();
  if (!value->is_string()) {
    error = "json: cannot unmarshal " + json_type_name(*value) + " into Go value of type string";
    return std::nullopt;
  }
  return std::string(value->as_string());
}

// kube's convertCELValueToStringList: a string, a list of strings, or null; empty strings are dropped.
std::optional<std::vector<std::string>> string_list(const cel::Value& value) {
  std::vector<std::string> out;
  if (const auto* text = value.get_if<std::string>()) {
    if (!text->empty()) out.push_back(*text);
    return out;
  }
  if (value.is_null()) return out;
  const cel::List* list = value.as_list();
  if (!list) return std::nullopt;
  for (std::size_t i = 0; i < list->size(); ++i) {
    const cel::Value item = list->at(i);
    const auto* text = item.get_if<std::string>();
    if (!text) return std::nullopt;
    if (!text->empty()) out.push_back(*text);
  }
  return out;
}

// One evaluation; an error value becomes kube's "expression '<e>' resulted in error: <why>".
std::optional<cel::Value> evaluate(const Expression& expression, const cel::Activation& activation, std::string& error) {
  cel::EvalResult result = expression.program.eval(activation, {.cost_limit = kPerCallCostLimit});
  if (const auto* failure = result.value.get_if<cel::Error>()) {
    error = "expression '" + expression.text + "' resulted in error: " + failure->message;
    return std::nullopt;
  }
  return std::move(result.value);
}

// kube's checkValidationRulesEvaluation.
std::optional<std::string> first_failed_rule(const std::vector<Expression>& rules, const cel::Activation& activation) {
  for (const auto& rule : rules) {
    std::string error;
    auto value = evaluate(rule, activation, error);
    if (!value) return error;
    const bool* passed = value->get_if<bool>();
    if (!passed) return std::string("validation expression must return a boolean");
    if (!*passed) return "validation expression '" + rule.text + "' failed: " + rule.message;
  }
  return std::nullopt;
}

cel::Value user_value(const request::UserInfo& user) {
  std::vector<cel::Value> groups(user.groups.begin(), user.groups.end());
  std::vector<std::pair<cel::Value, cel::Value>> extra;
  for (const auto& [key, values] : user.extra)
    extra.emplace_back(cel::Value(key), cel::Value::list(std::vector<cel::Value>(values.begin(), values.end())));
  return cel::Value::map({{cel::Value("username"), cel::Value(user.name)},
                          {cel::Value("uid"), cel::Value(user.uid)},
                          {cel::Value("groups"), cel::Value::list(std::move(groups))},
                          {cel::Value("extra"), cel::Value::map(std::move(extra))}});
}

}  // namespace

ClaimMapper::Mapped ClaimMapper::map(const json::object& claims) const {
  const Compiled& c = *compiled_;
  const ClaimMappings& mappings = c.config.claim_mappings;
  auto fail = [](std::string error) { return Mapped{std::nullopt, std::move(error)}; };
  cel::MapActivation activation;
  activation.set("claims", cel::value_of(std::make_shared<const json::value>(claims)));

  request::UserInfo user;
  std::string error;
  if (c.username) {
    auto value = evaluate(*c.username, activation, error);
    if (!value) return fail("oidc: error evaluating username claim expression: " + error);
    const auto* name = value->get_if<std::string>();
    if (!name) return fail("oidc: error evaluating username claim expression: username claim expression must return a string");
    user.name = *name;
  } else {
    auto name = claim_as_string(claims, mappings.username.claim, error);
    if (!name) return fail("oidc: parse username claims \"" + mappings.username.claim + "\": " + error);
    if (mappings.username.claim == "email") {
      // OpenID Connect Core 5.1: an address the issuer says it has not verified names nobody.
      if (const json::value* verified = claims.if_contains("email_verified")) {
        if (!verified->is_bool())
          return fail("oidc: parse 'email_verified' claim: json: cannot unmarshal " + json_type_name(*verified) +
                      " into Go value of type bool");
        if (!verified->as_bool()) return fail("oidc: email not verified");
      }
    }
    user.name = mappings.username.prefix.value_or("") + *name;
  }

  const std::string& groups_claim = mappings.groups.claim;
  if (!groups_claim.empty() && claims.contains(groups_claim)) {
    // Some issuers put one role in a string claim: a string is a list of one group (kubernetes#33290).
    const json::value& value = claims.at(groups_claim);
    std::vector<std::string> groups;
    bool strings = value.is_string() || value.is_array() || value.is_null();
    if (value.is_string()) groups.emplace_back(value.as_string());
    if (value.is_array())
      for (const auto& item : value.as_array()) {
        if (item.is_string()) groups.emplace_back(item.as_string());
        else if (!item.is_null()) strings = false;
        else groups.emplace_back();
      }
    if (!strings)
      return fail("oidc: parse groups claim \"" + groups_claim + "\": json: cannot unmarshal " + json_type_name(value) +
                  " into Go value of type string");
    for (auto& group : groups) user.groups.push_back(mappings.groups.prefix.value_or("") + group);
  } else if (c.groups) {
    auto value = evaluate(*c.groups, activation, error);
    if (!value) return fail("oidc: error evaluating group claim expression: " + error);
    auto groups = string_list(*value);
    if (!groups) return fail("oidc: error evaluating group claim expression: expression must return a string or a list of strings");
    user.groups = std::move(*groups);
  }

  if (!mappings.uid.claim.empty()) {
    auto uid = claim_as_string(claims, mappings.uid.claim, error);
    if (!uid) return fail("oidc: parse uid claim \"" + mappings.uid.claim + "\": " + error);
    user.uid = *uid;
  } else if (c.uid) {
    auto value = evaluate(*c.uid, activation, error);
    if (!value) return fail("oidc: error evaluating uid claim expression: " + error);
    const auto* uid = value->get_if<std::string>();
    if (!uid) return fail("oidc: error evaluating uid claim expression: uid claim expression must return a string");
    user.uid = *uid;
  }

  for (const auto& extra : c.extra) {
    auto value = evaluate(extra, activation, error);
    if (!value) return fail(error);
    auto values = string_list(*value);
    if (!values)
      return fail("oidc: error evaluating extra claim expression: " + extra.text +
                  ": expression must return a string or a list of strings");
    if (!values->empty()) user.extra[extra.key] = std::move(*values);
  }

  for (const auto& rule : c.config.claim_validation_rules) {
    if (rule.claim.empty()) continue;
    if (!claims.contains(rule.claim)) return fail("oidc: required claim " + rule.claim + " not present in ID token");
    auto value = claim_as_string(claims, rule.claim, error);
    if (!value) return fail("oidc: parse claim " + rule.claim + ": " + error);
    if (*value != rule.required_value)
      return fail("oidc: required claim " + rule.claim + " value does not match. Got = " + *value +
                  ", want = " + rule.required_value);
  }
  if (auto failed = first_failed_rule(c.claim_rules, activation))
    return fail("oidc: error evaluating claim validation expression: " + *failed);

  if (!c.user_rules.empty()) {
    cel::MapActivation user_activation;
    user_activation.set("user", user_value(user));
    if (auto failed = first_failed_rule(c.user_rules, user_activation))
      return fail("oidc: error evaluating user info validation rule: " + *failed);
  }
  return Mapped{std::move(user), {}};
}

validation::ErrorList validate_authentication_configuration(const AuthenticationConfiguration& config,
                                                            const std::vector<std::string>& disallowed_issuers) {
  ErrorList errors;
  const Path root("jwt");
  if (config.jwt.size() > 64) {
    errors.push_back({validation::ErrorType::TooMany, root.str(), std::to_string(config.jwt.size()),
                      "must have at most 64 items"});
    return errors;
  }
  const std::set<std::string> disallowed(disallowed_issuers.begin(), disallowed_issuers.end());
  std::set<std::string> seen_issuers, seen_discovery;
  for (std::size_t i = 0; i < config.jwt.size(); ++i) {
    const auto& jwt = config.jwt[i];
    const Path at = root.index(i);
    validate_issuer(jwt.issuer, disallowed, at.child("issuer"), errors);
    ClaimMapper::compile(jwt, at, errors);
    if (!seen_issuers.insert(jwt.issuer.url).second)
      errors.push_back(validation::duplicate(at.child("issuer").child("url"), jwt.issuer.url));
    if (!jwt.issuer.discovery_url.empty() && !seen_discovery.insert(jwt.issuer.discovery_url).second)
      errors.push_back(validation::duplicate(at.child("issuer").child("discoveryURL"), jwt.issuer.discovery_url));
  }
  if (config.anonymous && !config.anonymous->enabled && !config.anonymous->condition_paths.empty()) {
    // Go's %#v of the conditions, as field.Invalid prints a value of that type.
    std::string conditions = "[]apiserver.AnonymousAuthCondition{";
    for (std::size_t i = 0; i < config.anonymous->condition_paths.size(); ++i)
      conditions += std::string(i ? ", " : "") + "apiserver.AnonymousAuthCondition{Path:" +
                    validation::quoted(config.anonymous->condition_paths[i]) + "}";
    errors.push_back(validation::invalid_value(Path("anonymous").child("conditions"), conditions + "}",
                                               "enabled should be set to true when conditions are defined"));
  }
  return errors;
}

std::string aggregate(const ErrorList& errors) {
  if (errors.empty()) return "";
  if (errors.size() == 1) return errors.front().text();
  std::string out;
  for (const auto& error : errors) out += (out.empty() ? "[" : ", ") + error.text();
  return out + "]";
}

}  // namespace kapi::authentication
