#include "server/apiextensions/custom_resource_strategy.h"

#include "base/go_json_errors.h"
#include "server/apiextensions/cel/validator.h"
#include "server/apiextensions/jsonpath.h"
#include "server/apiextensions/schema/defaulting.h"
#include "server/apiextensions/schema/embedded_resources.h"
#include "server/apiextensions/schema/list_validation.h"
#include "server/apiextensions/schema/pruning.h"
#include "server/apiextensions/schema/value_validation.h"
#include "server/apierrors/errors.h"
#include "server/registry/object_meta.h"
#include "server/schema/decoding.h"

#include <boost/json.hpp>

#include <cmath>
#include <sstream>

namespace kapi::apiextensions {
namespace {

namespace json = boost::json;

struct Column {
  registry::TableColumn header;
  std::optional<JsonPath> path;
};

std::vector<std::string> field_path(std::string_view json_path) {
  if (json_path.empty()) return {};
  auto parsed = JsonPath::parse(json_path);
  if (!parsed) return {};
  return parsed->field_names().value_or(std::vector<std::string>{});
}

// The text client-go's jsonpath prints for a value: strings as they are, other values as JSON.
std::string print_value(const json::value& value) {
  if (value.is_string()) return std::string(value.as_string());
  return json::serialize(value);
}

// cellForJSONValue: the cell of a non-string column, or null when the value is not of the column's type.
json::value typed_cell(std::string_view type, const json::value& value) {
  if (type == "integer") {
    if (value.is_int64() || value.is_uint64()) return value;
    if (value.is_double() && std::trunc(value.as_double()) == value.as_double())
      return static_cast<std::int64_t>(value.as_double());
    return nullptr;
  }
  if (type == "number") return value.is_number() ? value : json::value(nullptr);
  if (type == "boolean") return value.is_bool() ? value : json::value(nullptr);
  if (type == "date") {
    if (!value.is_string()) return nullptr;
    json::object probe{{"metadata", json::object{{"creationTimestamp", value}}}};
    std::string age = registry::age_of(probe);
    return age == "<unknown>" ? json::value("<invalid>") : json::value(age);
  }
  return nullptr;
}

// hasBlockingErr: schema errors that make CEL rules pointless to run (a wrong type, a missing or unsupported value,
// a value too long or with too many items).
bool has_blocking_error(const validation::ErrorList& errors) {
  using validation::ErrorType;
  for (const auto& error : errors)
    if (error.type == ErrorType::NotSupported || error.type == ErrorType::Required || error.type == ErrorType::TooLong ||
        error.type == ErrorType::TooMany || error.type == ErrorType::TypeInvalid)
      return true;
  return false;
}

class CustomResourceStrategy final : public registry::Strategy {
 public:
  CustomResourceStrategy(const kapi::schema::Catalog& catalog, const Crd& crd, const CrdVersion& version,
                         std::shared_ptr<const cel::Validator> rules)
      : catalog_(catalog), kind_(crd.accepted_names.kind), group_(crd.group), version_(version.name), schema_(version.schema),
        rules_(std::move(rules)), status_subresource_(version.status_subresource) {
    if (version.scale) {
      scale_ = registry::ScalePaths{field_path(version.scale->spec_replicas_path),
                                    field_path(version.scale->status_replicas_path),
                                    field_path(version.scale->label_selector_path)};
      spec_replicas_path_ = version.scale->spec_replicas_path;
      status_replicas_path_ = version.scale->status_replicas_path;
    }
    columns_.push_back({registry::TableColumn{"Name", "string", "name",
                                              "Name must be unique within a namespace. Is required when creating "
                                              "resources, although some resources may allow a client to request the "
                                              "generation of an appropriate name automatically. Name is primarily "
                                              "intended for creation idempotence and configuration definition. Cannot "
                                              "be updated. More info: "
                                              "https://kubernetes.io/docs/concepts/overview/working-with-objects/"
                                              "names#names",
                                              0},
                        std::nullopt});
    std::vector<PrinterColumn> printer_columns = version.printer_columns;
    if (printer_columns.empty())
      printer_columns.push_back({"Age", "date", "",
                                 "CreationTimestamp is a timestamp representing the server time when this object was "
                                 "created. It is not guaranteed to be set in happens-before order across separate "
                                 "operations. Clients may not set this value. It is represented in RFC3339 form and "
                                 "is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: "
                                 "https://git.k8s.io/community/contributors/devel/sig-architecture/"
                                 "api-conventions.md#metadata",
                                 ".metadata.creationTimestamp", 0});
    for (const auto& column : printer_columns)
      columns_.push_back({registry::TableColumn{column.name, column.type, column.format, column.description,
                                                column.priority},
                          JsonPath::parse(column.json_path)});
    if (version.deprecated) deprecation_warning_ = version.deprecation_warning.value_or(default_warning(crd));
  }

  void prepare_for_create(json::object& object) const override {
    if (status_subresource_) object.erase("status");
  }

  validation::ErrorList validate(const json::object& object) const override {
    std::vector<std::string> warnings;
    return validate_write(object, nullptr, false, warnings);
  }
  validation::ErrorList validate_update(const json::object& object, const json::object& old) const override {
    std::vector<std::string> warnings;
    return validate_update_with_warnings("", object, old, warnings);
  }
  validation::ErrorList validate_subresource_update(std::string_view subresource, const json::object& object,
                                                    const json::object& old) const override {
    std::vector<std::string> warnings;
    return validate_update_with_warnings(subresource, object, old, warnings);
  }
  // kube's CRDValidationRatcheting (on by default): unchanged values are not held to rules they already broke, and
  // the request is warned about each CEL rule let through. The status strategy runs every rule of the object, with
  // transition rules, but without ratcheting (as 1.32.0 does); scale writes go through the main strategy.
  validation::ErrorList validate_update_with_warnings(std::string_view subresource, const json::object& object,
                                                      const json::object& old,
                                                      std::vector<std::string>& warnings) const override {
    return validate_write(object, &old, subresource != "status", warnings);
  }

  bool tracks_generation() const override { return true; }
  bool generation_counts_status() const override { return !status_subresource_; }
  bool allow_create_on_update() const override { return false; }

  std::optional<std::vector<std::string>> conform(json::object& object) const override {
    std::vector<std::string> unknown = decode_object_meta(object);
    if (!schema_) return unknown;
    json::value value = std::move(object);
    for (auto& path : schema::prune(value, *schema_)) unknown.push_back(std::move(path));
    for (auto& path : schema::coerce_embedded_metadata(value, *schema_)) unknown.push_back(std::move(path));
    schema::prune_non_nullable_nulls_without_defaults(value, *schema_);
    schema::apply_defaults(value, *schema_);
    object = std::move(value.as_object());
    return unknown;
  }

  // customResourceStrategy's and statusStrategy's GetResetFields.
  std::optional<std::vector<std::vector<std::string>>> reset_fields(std::string_view subresource) const override {
    if (!status_subresource_) return std::vector<std::vector<std::string>>{};
    if (subresource == "status")
      return std::vector<std::vector<std::string>>{{"apiVersion"}, {"kind"}, {"metadata"}, {"spec"}};
    return std::vector<std::vector<std::string>>{{"status"}};
  }
  std::optional<registry::ScalePaths> scale_paths() const override { return scale_; }
  bool strategic_merge_patch() const override { return false; }

  std::vector<std::string> request_warnings() const override {
    if (deprecation_warning_.empty()) return {};
    return {deprecation_warning_};
  }

  std::vector<registry::TableColumn> table_columns() const override {
    std::vector<registry::TableColumn> out;
    for (const auto& column : columns_) out.push_back(column.header);
    return out;
  }

  json::array table_cells(const json::object& object) const override {
    json::array cells;
    const json::value root = object;
    for (const auto& column : columns_) {
      if (!column.path) {
        cells.emplace_back(registry::meta_string(object, "name"));
        continue;
      }
      auto results = column.path->find(root);
      if (results.empty()) {
        cells.emplace_back(nullptr);
        continue;
      }
      if (column.header.type == "string") cells.emplace_back(print_value(*results.front()));
      else cells.push_back(typed_cell(column.header.type, *results.front()));
    }
    return cells;
  }

 private:
  // GetObjectMetaWithOptions: kube decodes a custom resource's metadata into metav1.ObjectMeta on its own and writes
  // that back, so a field of the wrong type fails the request (named from ObjectMeta's root: "ObjectMeta.labels"),
  // unknown fields are dropped and reported ("metadata.foo"), and what is kept is ObjectMeta's Go form.
  std::vector<std::string> decode_object_meta(json::object& object) const {
    json::value* metadata = object.if_contains("metadata");
    if (!metadata || metadata->is_null()) return {};
    const google::protobuf::Descriptor* type = catalog_.message("k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta");
    std::vector<std::string> unknown;
    std::optional<std::string> error;
    if (!metadata->is_object())
      error = base::GoUnmarshalTypeError{.value = std::string(base::go_json_kind(*metadata)), .type = "v1.ObjectMeta"}
                  .message();
    else error = kapi::schema::conform_embedded(catalog_, type, metadata->as_object(), "", unknown);
    if (error)
      throw apierrors::ApiError(apierrors::bad_request(kind_ + " in version \"" + version_ +
                                                       "\" cannot be handled as a " + kind_ + ": " + *error));
    kapi::schema::to_go_form(catalog_, type, metadata->as_object());
    for (auto& path : unknown) path = "metadata." + path;
    return unknown;
  }

  validation::ErrorList validate_write(const json::object& object, const json::object* old, bool ratcheting,
                                       std::vector<std::string>& warnings) const {
    validation::ErrorList errors;
    if (schema_) {
      const json::value value = object;
      std::optional<json::value> old_value;
      if (old) old_value.emplace(*old);
      errors = ratcheting ? schema::validate_value_update(*schema_, value, *old_value)
                          : schema::validate_value(*schema_, value);
      for (auto& error : schema::validate_embedded_resources(value, *schema_)) errors.push_back(std::move(error));
      // Set and map lists are held to their invariants unless the old object already broke them.
      if (!old_value || schema::validate_lists(*old_value, *schema_).empty())
        for (auto& error : schema::validate_lists(value, *schema_)) errors.push_back(std::move(error));
      if (scale_) validate_scale(object, errors);
      if (rules_) {
        if (has_blocking_error(errors)) {
          validation::FieldError blocked = validation::invalid(validation::Path(""), "null",
              "some validation rules were not checked because the object was invalid; correct the existing errors "
              "to complete validation");
          blocked.field = "<nil>";
          errors.push_back(std::move(blocked));
        } else {
          auto result = rules_->validate(value, old_value ? &*old_value : nullptr, ratcheting);
          for (auto& error : result.errors) errors.push_back(std::move(error));
          for (auto& warning : result.warnings) warnings.push_back(std::move(warning));
        }
      }
      return errors;
    }
    if (scale_) validate_scale(object, errors);
    return errors;
  }

  // ValidateScaleSpec and ValidateScaleStatus: replicas must be non-negative 32-bit integers when present.
  void validate_scale(const json::object& object, validation::ErrorList& errors) const {
    auto check = [&](const std::vector<std::string>& path, const std::string& text) {
      const json::value* value = registry::value_at(object, path);
      if (!value) return;
      std::string field = text.starts_with('.') ? text.substr(1) : text;
      validation::Path at(field);
      if (!value->is_int64()) {
        errors.push_back(validation::invalid_value(at, json::serialize(*value), "should be an integer"));
      } else if (value->as_int64() < 0) {
        errors.push_back(validation::invalid_value(at, std::to_string(value->as_int64()),
                                                   "should be a non-negative integer"));
      } else if (value->as_int64() > 2147483647) {
        errors.push_back(validation::invalid_value(at, std::to_string(value->as_int64()),
                                                   "should be less than or equal to 2147483647"));
      }
    };
    check(scale_->spec_replicas, spec_replicas_path_);
    check(scale_->status_replicas, status_replicas_path_);
  }

  // defaultDeprecationWarning: names the best served version that is not deprecated and ranks above this one.
  std::string default_warning(const Crd& crd) const {
    std::string warning = group_ + "/" + version_ + " " + kind_ + " is deprecated";
    const CrdVersion* better = nullptr;
    for (const auto& candidate : crd.versions)
      if (candidate.served && !candidate.deprecated && kube_aware_version_before(candidate.name, version_) &&
          (!better || kube_aware_version_before(candidate.name, better->name)))
        better = &candidate;
    if (better) warning += "; use " + group_ + "/" + better->name + " " + kind_;
    return warning;
  }

  const kapi::schema::Catalog& catalog_;
  std::string kind_, group_, version_;
  std::shared_ptr<const schema::Schema> schema_;
  std::shared_ptr<const cel::Validator> rules_;  // x-kubernetes-validations, compiled once per CRD version
  bool status_subresource_ = false;
  std::optional<registry::ScalePaths> scale_;
  std::string spec_replicas_path_, status_replicas_path_;
  std::vector<Column> columns_;
  std::string deprecation_warning_;
};

}  // namespace

std::shared_ptr<const registry::Strategy> custom_resource_strategy(const kapi::schema::Catalog& catalog, const Crd& crd,
                                                                   const CrdVersion& version) {
  return custom_resource_strategy(catalog, crd, version, cel::Validator::for_resource(version.schema));
}

std::shared_ptr<const registry::Strategy> custom_resource_strategy(const kapi::schema::Catalog& catalog, const Crd& crd,
                                                                   const CrdVersion& version,
                                                                   std::shared_ptr<const cel::Validator> rules) {
  return std::make_shared<CustomResourceStrategy>(catalog, crd, version, std::move(rules));
}

}  // namespace kapi::apiextensions
