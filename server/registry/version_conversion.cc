#include "server/registry/version_conversion.h"

#include <boost/json.hpp>

namespace kapi::registry {
namespace {

namespace json = boost::json;

class BytesConversion final : public storage::ObjectConversion {
 public:
  explicit BytesConversion(std::shared_ptr<const VersionConversion> conversion) : conversion_(std::move(conversion)) {}

  std::string to_storage(std::string_view served) const override {
    return json::serialize(conversion_->to_storage(parse(served)));
  }
  std::string from_storage(std::string_view stored) const override {
    return json::serialize(conversion_->from_storage(parse(stored)));
  }

 private:
  static json::object parse(std::string_view bytes) {
    boost::system::error_code error;
    json::value value = json::parse(bytes, error);
    if (error || !value.is_object())
      throw storage::StorageError(storage::ErrorCode::InvalidObj, "", "object to convert is not a JSON object");
    return std::move(value.as_object());
  }

  std::shared_ptr<const VersionConversion> conversion_;
};

class ConvertedStrategy final : public Strategy {
 public:
  ConvertedStrategy(std::shared_ptr<const Strategy> inner, std::shared_ptr<const VersionConversion> conversion)
      : inner_(std::move(inner)), conversion_(std::move(conversion)) {}

  void apply_scheme_defaults(json::object& object) const override {
    json::object stored = stored_form(object);
    inner_->apply_scheme_defaults(stored);
    object = conversion_->from_storage(std::move(stored));
  }
  void prepare_for_create(json::object& object) const override {
    json::object stored = stored_form(object);
    inner_->prepare_for_create(stored);
    object = conversion_->from_storage(std::move(stored));
  }
  void prepare_for_update(json::object& object, const json::object& old) const override {
    json::object stored = stored_form(object);
    inner_->prepare_for_update(stored, stored_form(old));
    object = conversion_->from_storage(std::move(stored));
  }
  asio::awaitable<FinishWrite> begin_write(json::object& object, const json::object* old,
                                           bool dry_run) const override {
    json::object stored = stored_form(object);
    std::optional<json::object> stored_old = old ? std::optional(stored_form(*old)) : std::nullopt;
    FinishWrite finish = co_await inner_->begin_write(stored, stored_old ? &*stored_old : nullptr, dry_run);
    object = conversion_->from_storage(std::move(stored));
    co_return finish;
  }
  asio::awaitable<void> after_delete(std::string_view stored) const override { co_await inner_->after_delete(stored); }
  validation::ErrorList validate(const json::object& object) const override {
    return inner_->validate(stored_form(object));
  }
  validation::ErrorList validate_update(const json::object& object, const json::object& old) const override {
    return inner_->validate_update(stored_form(object), stored_form(old));
  }
  validation::ErrorList validate_subresource_update(std::string_view subresource, const json::object& object,
                                                    const json::object& old) const override {
    return inner_->validate_subresource_update(subresource, stored_form(object), stored_form(old));
  }
  validation::ErrorList validate_update_with_warnings(std::string_view subresource, const json::object& object,
                                                      const json::object& old,
                                                      std::vector<std::string>& warnings) const override {
    return inner_->validate_update_with_warnings(subresource, stored_form(object), stored_form(old), warnings);
  }
  void authorize_write(const request::UserInfo& user, const json::object& object,
                       const json::object* old) const override {
    std::optional<json::object> old_stored;
    if (old) old_stored = stored_form(*old);
    inner_->authorize_write(user, stored_form(object), old_stored ? &*old_stored : nullptr);
  }
  bool name_is_dns_label() const override { return inner_->name_is_dns_label(); }
  bool name_is_path_segment() const override { return inner_->name_is_path_segment(); }
  bool allow_create_on_update() const override { return inner_->allow_create_on_update(); }
  bool allow_unconditional_update() const override { return inner_->allow_unconditional_update(); }
  bool tracks_generation() const override { return inner_->tracks_generation(); }
  bool generation_counts_status() const override { return inner_->generation_counts_status(); }
  std::optional<json::object> mark_for_deletion(const json::object& current,
                                                std::optional<std::int64_t> grace_period_seconds) const override {
    std::optional<json::object> marked = inner_->mark_for_deletion(stored_form(current), grace_period_seconds);
    if (marked) marked = conversion_->from_storage(std::move(*marked));
    return marked;
  }
  bool deletes_when_finalized(const json::object& object) const override {
    return inner_->deletes_when_finalized(stored_form(object));
  }
  bool return_deleted_object() const override { return inner_->return_deleted_object(); }
  std::vector<std::string> selectable_field_names() const override { return inner_->selectable_field_names(); }
  void selectable_fields(const json::object& object, SelectableFields& fields) const override {
    inner_->selectable_fields(stored_form(object), fields);
  }
  std::vector<std::string> write_warnings(const json::object& object) const override {
    return inner_->write_warnings(stored_form(object));
  }
  std::vector<std::string> request_warnings() const override { return inner_->request_warnings(); }
  std::optional<std::vector<std::vector<std::string>>> reset_fields(std::string_view subresource) const override {
    return inner_->reset_fields(subresource);
  }
  std::vector<TableColumn> table_columns() const override { return inner_->table_columns(); }
  json::array table_cells(const json::object& object) const override {
    return inner_->table_cells(stored_form(object));
  }
  json::array table_row_conditions(const json::object& object) const override {
    return inner_->table_row_conditions(stored_form(object));
  }

 private:
  json::object stored_form(const json::object& served) const { return conversion_->to_storage(served); }

  std::shared_ptr<const Strategy> inner_;
  std::shared_ptr<const VersionConversion> conversion_;
};

}  // namespace

std::shared_ptr<const storage::ObjectConversion> object_conversion(std::shared_ptr<const VersionConversion> conversion) {
  return std::make_shared<BytesConversion>(std::move(conversion));
}

std::shared_ptr<const Strategy> converted_strategy(std::shared_ptr<const Strategy> storage_version,
                                                   std::shared_ptr<const VersionConversion> conversion) {
  return std::make_shared<ConvertedStrategy>(std::move(storage_version), std::move(conversion));
}

}  // namespace kapi::registry
