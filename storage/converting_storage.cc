#include "storage/converting_storage.h"

namespace kapi::storage {
namespace {

class Converting final : public value::Transformer {
 public:
  explicit Converting(std::shared_ptr<const ObjectConversion> conversion) : conversion_(std::move(conversion)) {}
  std::string to_storage(std::string_view value, std::string_view) const override {
    return conversion_->to_storage(value);
  }
  value::FromStorage from_storage(std::string_view stored, std::string_view) const override {
    return {conversion_->from_storage(stored), false};
  }

 private:
  std::shared_ptr<const ObjectConversion> conversion_;
};

}  // namespace

std::shared_ptr<const value::Transformer> conversion_transformer(std::shared_ptr<const ObjectConversion> conversion) {
  return std::make_shared<Converting>(std::move(conversion));
}

}  // namespace kapi::storage
