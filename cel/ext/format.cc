// kube's format library (k8s.io/apiserver/pkg/cel/library/format.go): named string formats whose validate()
// returns optional.none() for a valid string, or the list of kube's validation messages.
#include <re2/re2.h>

#include "base/go_url.h"
#include "base/name_validation.h"
#include "cel/ext/ext_util.h"
#include "cel/ext/kube_types.h"
#include "cel/ext/libraries.h"

namespace kapi::cel::ext {
namespace {

using Validate = std::vector<std::string> (*)(std::string_view);

class NamedFormatValue final : public Opaque {
 public:
  NamedFormatValue(std::string name, Validate validate) : name_(std::move(name)), validate_(validate) {}
  std::string_view type_name() const override { return kNamedFormatTypeName; }
  bool equals(const Opaque& other) const override {
    const auto* f = dynamic_cast<const NamedFormatValue*>(&other);
    return f && f->name_ == name_;
  }
  std::vector<std::string> validate(std::string_view s) const { return validate_(s); }

 private:
  std::string name_;
  Validate validate_;
};

// apimachinery's NameIsDNS*(name, prefix): a generateName prefix may end in '-', checked as if it were 'a'.
std::string mask_trailing_dash(std::string_view name) {
  if (name.size() > 1 && name.back() == '-') return std::string(name.substr(0, name.size() - 2)) + "a";
  return std::string(name);
}

// time.Parse("2006-01-02", s).
bool is_full_date(std::string_view s) {
  if (s.size() != 10 || s[4] != '-' || s[7] != '-') return false;
  for (std::size_t i : {0, 1, 2, 3, 5, 6, 8, 9})
    if (s[i] < '0' || s[i] > '9') return false;
  const int year = std::stoi(std::string(s.substr(0, 4))), month = std::stoi(std::string(s.substr(5, 2))),
            day = std::stoi(std::string(s.substr(8, 2)));
  if (month < 1 || month > 12 || day < 1) return false;
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  return day <= kDays[month - 1] + (month == 2 && leap ? 1 : 0);
}

// strfmt.IsDateTime.
bool is_date_time(std::string_view str) {
  if (str.size() < 4) return false;
  std::string lower(str);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const auto t = lower.find('t');
  if (t == std::string::npos || !is_full_date(lower.substr(0, t))) return false;
  const std::string rest = lower.substr(t + 1, lower.find('t', t + 1) - t - 1);
  static const RE2 kTime(R"(^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$)");
  std::string hours, minutes, seconds;
  if (!RE2::PartialMatch(rest, kTime, &hours, &minutes, &seconds)) return false;
  return hours <= "23" && minutes <= "59" && seconds <= "59";
}

std::vector<std::string> when(bool valid, const char* message) {
  if (valid) return {};
  return {message};
}

const std::vector<std::pair<std::string, Validate>>& named_formats() {
  static const std::vector<std::pair<std::string, Validate>> kFormats = {
      {"dns1123Label", [](std::string_view s) { return validation::is_dns1123_label(s); }},
      {"dns1123Subdomain", [](std::string_view s) { return validation::is_dns1123_subdomain(s); }},
      {"dns1035Label", [](std::string_view s) { return validation::is_dns1035_label(s); }},
      {"qualifiedName", [](std::string_view s) { return validation::is_qualified_name(s); }},
      {"dns1123LabelPrefix",
       [](std::string_view s) { return validation::is_dns1123_label(mask_trailing_dash(s)); }},
      {"dns1123SubdomainPrefix",
       [](std::string_view s) { return validation::is_dns1123_subdomain(mask_trailing_dash(s)); }},
      {"dns1035LabelPrefix",
       [](std::string_view s) { return validation::is_dns1035_label(mask_trailing_dash(s)); }},
      {"labelValue", [](std::string_view s) { return validation::is_valid_label_value(s); }},
      {"uri",
       [](std::string_view s) -> std::vector<std::string> {
         auto parsed = base::parse_go_request_uri(s);
         if (auto* error = std::get_if<base::GoUrlError>(&parsed)) return {error->message};
         return {};
       }},
      {"uuid",
       [](std::string_view s) {
         static const RE2 kUUID(R"((?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$)");
         return when(RE2::PartialMatch(s, kUUID), "does not match the UUID format");
       }},
      {"byte",
       [](std::string_view s) {
         static const RE2 kBase64(
             R"(^(?:[A-Za-z0-9+\/]{4})*(?:[A-Za-z0-9+\/]{2}==|[A-Za-z0-9+\/]{3}=|[A-Za-z0-9+\/]{4})$)");
         return when(RE2::PartialMatch(s, kBase64), "invalid base64");
       }},
      {"date", [](std::string_view s) { return when(is_full_date(s), "invalid date"); }},
      {"datetime", [](std::string_view s) { return when(is_date_time(s), "invalid datetime"); }},
  };
  return kFormats;
}

Value format_validate(std::span<const Value> args) {
  const auto* format = opaque_as<NamedFormatValue>(args[0]);
  if (!format) return Value::no_such_overload("validate");
  std::vector<std::string> errors = format->validate(args[1].get<std::string>());
  if (errors.empty()) return Value::optional_none();
  return Value::optional_of(string_list(std::move(errors)));
}

}  // namespace

Library format_library() {
  const Type f = named_format_type();
  Library lib{.name = "format"};
  lib.types = {f};
  lib.functions = {
      Function{"validate", {member_overload("format-validate", {f, Type::string_type()},
                                            Type::optional(Type::list(Type::string_type())), format_validate)}},
      Function{"format.named", {global_overload("format-named", {Type::string_type()}, Type::optional(f),
                                                [](std::span<const Value> args) -> Value {
                                                  const std::string& name = args[0].get<std::string>();
                                                  for (const auto& [n, validate] : named_formats())
                                                    if (n == name)
                                                      return Value::optional_of(
                                                          make_opaque<NamedFormatValue>(n, validate));
                                                  return Value::optional_none();
                                                })}},
  };
  for (const auto& [name, validate] : named_formats()) {
    const std::string function = "format." + name;
    lib.functions.push_back(Function{
        function, {global_overload(function, {}, f, [name = name, validate = validate](std::span<const Value>) {
          return make_opaque<NamedFormatValue>(name, validate);
        })}});
  }
  return lib;
}

}  // namespace kapi::cel::ext
