// kube's urls library (k8s.io/apiserver/pkg/cel/library/urls.go) over Go's net/url as base/go_url.h models it:
// url() accepts what url.ParseRequestURI accepts, then keeps url.Parse's reading (which splits off a fragment).
#include "cel/ext/ext_util.h"
#include "cel/ext/kube_types.h"
#include "cel/ext/libraries.h"

namespace kapi::cel::ext {
namespace {

Value string_to_url(std::span<const Value> args) {
  const std::string& text = args[0].get<std::string>();
  auto checked = base::parse_go_request_uri(text);
  if (auto* error = std::get_if<base::GoUrlError>(&checked))
    return error_value("URL parse error during conversion from string: " + error->message);
  auto parsed = base::parse_go_url(text);
  if (auto* error = std::get_if<base::GoUrlError>(&parsed))
    return error_value("URL parse error during conversion from string: " + error->message);
  return make_opaque<URLValue>(std::get<base::GoUrl>(std::move(parsed)));
}

template <typename F>
FunctionImpl on_url(const char* name, F f) {
  return [name, f](std::span<const Value> args) -> Value {
    const auto* url = opaque_as<URLValue>(args[0]);
    if (!url) return Value::no_such_overload(name);
    return f(url->url());
  };
}

Value query_map(const base::GoUrl& url) {
  std::vector<std::pair<Value, Value>> entries;
  for (auto& [key, values] : url.query()) entries.emplace_back(Value(key), string_list(values));
  return Value::map(std::move(entries));
}

}  // namespace

bool URLValue::equals(const Opaque& other) const {
  const auto* u = dynamic_cast<const URLValue*>(&other);
  if (!u) return false;
  const base::GoUrl &a = url_, &b = u->url_;
  return a.scheme == b.scheme && a.opaque == b.opaque && a.has_user == b.has_user && a.username == b.username &&
         a.password == b.password && a.password_set == b.password_set && a.host == b.host && a.path == b.path &&
         a.escaped_path() == b.escaped_path() && a.force_query == b.force_query && a.raw_query == b.raw_query &&
         a.fragment == b.fragment;
}

Library urls_library() {
  const Type u = url_type(), s = Type::string_type();
  Library lib{.name = "kubernetes.urls"};
  lib.types = {u};
  auto accessor = [&](const char* name, const char* id, std::string (base::GoUrl::*get)() const) {
    return Function{name, {member_overload(id, {u}, s, on_url(name, [get](const base::GoUrl& url) -> Value {
                                              return (url.*get)();
                                            }))}};
  };
  lib.functions = {
      Function{"url", {global_overload("string_to_url", {s}, u, string_to_url)}},
      Function{"getScheme", {member_overload("url_get_scheme", {u}, s, on_url("getScheme", [](const auto& url) {
                               return Value(url.scheme);
                             }))}},
      Function{"getHost", {member_overload("url_get_host", {u}, s, on_url("getHost", [](const auto& url) {
                             return Value(url.host);
                           }))}},
      accessor("getHostname", "url_get_hostname", &base::GoUrl::hostname),
      accessor("getPort", "url_get_port", &base::GoUrl::port),
      accessor("getEscapedPath", "url_get_escaped_path", &base::GoUrl::escaped_path),
      Function{"getQuery", {member_overload("url_get_query", {u}, Type::map(s, Type::list(s)),
                                            on_url("getQuery", query_map))}},
      Function{"isURL", {global_overload("is_url_string", {s}, Type::bool_type(),
                                         [](std::span<const Value> args) -> Value {
                                           return std::holds_alternative<base::GoUrl>(
                                               base::parse_go_request_uri(args[0].get<std::string>()));
                                         })}},
  };
  return lib;
}

}  // namespace kapi::cel::ext
