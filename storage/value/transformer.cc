#include "storage/value/transformer.h"

namespace kapi::storage::value {
namespace {

constexpr std::string_view kEncryptedPrefix = "k8s:enc:";

class Identity final : public Transformer {
 public:
  std::string to_storage(std::string_view value, std::string_view) const override { return std::string(value); }
  FromStorage from_storage(std::string_view stored, std::string_view) const override {
    // JSON starts with '{' and kube's protobuf with "k8s\0": only encrypted values start with "k8s:enc:".
    if (stored.starts_with(kEncryptedPrefix)) throw TransformError("identity transformer tried to read encrypted data");
    return {std::string(stored), false};
  }
};

class Prefixed final : public Transformer {
 public:
  Prefixed(std::vector<PrefixTransformer> transformers, std::string no_match)
      : transformers_(std::move(transformers)), no_match_(std::move(no_match)) {}

  std::string to_storage(std::string_view value, std::string_view key) const override {
    const PrefixTransformer& first = transformers_.front();
    return first.prefix + first.transformer->to_storage(value, key);
  }

  FromStorage from_storage(std::string_view stored, std::string_view key) const override {
    // A failure never ends the search: two providers of one kind share a prefix (the key being rotated to and the
    // one rotated away from), and identity refuses encrypted values so that a later provider reads them.
    std::vector<std::string> errors;
    for (std::size_t i = 0; i < transformers_.size(); ++i) {
      const PrefixTransformer& candidate = transformers_[i];
      if (!stored.starts_with(candidate.prefix)) continue;
      try {
        FromStorage read = candidate.transformer->from_storage(stored.substr(candidate.prefix.size()), key);
        read.stale = read.stale || i != 0;
        return read;
      } catch (const TransformError& error) {
        errors.emplace_back(error.what());
      }
    }
    if (errors.empty()) throw TransformError(no_match_);
    if (errors.size() == 1) throw TransformError(errors.front());
    // utilerrors.NewAggregate's message.
    std::string message = "[";
    for (std::size_t i = 0; i < errors.size(); ++i) message += (i ? ", " : "") + errors[i];
    throw TransformError(message + "]");
  }

 private:
  std::vector<PrefixTransformer> transformers_;
  std::string no_match_;
};

class Composed final : public Transformer {
 public:
  Composed(std::shared_ptr<const Transformer> outer, std::shared_ptr<const Transformer> inner)
      : outer_(std::move(outer)), inner_(std::move(inner)) {}
  std::string to_storage(std::string_view value, std::string_view key) const override {
    return inner_->to_storage(outer_->to_storage(value, key), key);
  }
  FromStorage from_storage(std::string_view stored, std::string_view key) const override {
    FromStorage inner = inner_->from_storage(stored, key);
    FromStorage outer = outer_->from_storage(inner.value, key);
    outer.stale = outer.stale || inner.stale;
    return outer;
  }

 private:
  std::shared_ptr<const Transformer> outer_;
  std::shared_ptr<const Transformer> inner_;
};

}  // namespace

std::shared_ptr<const Transformer> compose(std::shared_ptr<const Transformer> outer,
                                          std::shared_ptr<const Transformer> inner) {
  if (!outer) return inner;
  if (!inner) return outer;
  return std::make_shared<Composed>(std::move(outer), std::move(inner));
}

std::shared_ptr<const Transformer> identity_transformer() { return std::make_shared<Identity>(); }

std::shared_ptr<const Transformer> prefix_transformers(std::vector<PrefixTransformer> transformers,
                                                       std::string no_match) {
  if (transformers.empty()) throw std::invalid_argument("prefix_transformers: at least one transformer is needed");
  return std::make_shared<Prefixed>(std::move(transformers), std::move(no_match));
}

}  // namespace kapi::storage::value
