#include "server/apiextensions/none_conversion_storage.h"

#include <boost/json.hpp>

namespace kapi::apiextensions {
namespace {

class ConvertingWatch final : public storage::WatchStream {
 public:
  ConvertingWatch(std::unique_ptr<storage::WatchStream> inner, std::string served)
      : inner_(std::move(inner)), served_(std::move(served)) {}

  asio::awaitable<std::optional<storage::WatchEvent>> next() override {
    std::optional<storage::WatchEvent> event = co_await inner_->next();
    if (event) {
      if (!event->object.value.empty()) event->object.value = with_api_version(event->object.value, served_);
      if (!event->prev_object.value.empty())
        event->prev_object.value = with_api_version(event->prev_object.value, served_);
    }
    co_return event;
  }
  void stop() override { inner_->stop(); }

 private:
  std::unique_ptr<storage::WatchStream> inner_;
  std::string served_;
};

// Where the top-level apiVersion's string value starts and ends, for objects that open with it or with kind
// (how kapi and kube-apiserver both write objects); nullopt otherwise.
std::optional<std::pair<std::size_t, std::size_t>> api_version_span(std::string_view object) {
  constexpr std::string_view kApiVersion = "\"apiVersion\":\"";
  std::size_t at = 1;
  if (object.substr(0, 1) != "{") return std::nullopt;
  if (object.substr(1).starts_with("\"kind\":\"")) {
    auto end_of_kind = object.find('"', 9);
    if (end_of_kind == std::string_view::npos || object.substr(end_of_kind + 1, 1) != ",") return std::nullopt;
    at = end_of_kind + 2;
  }
  if (!object.substr(at).starts_with(kApiVersion)) return std::nullopt;
  const std::size_t begin = at + kApiVersion.size();
  const std::size_t end = object.find('"', begin);
  if (end == std::string_view::npos) return std::nullopt;
  return std::make_pair(begin, end);
}

}  // namespace

std::string with_api_version(std::string_view object, std::string_view api_version) {
  if (auto span = api_version_span(object)) {
    if (object.substr(span->first, span->second - span->first) == api_version) return std::string(object);
    std::string out;
    out.reserve(object.size() + api_version.size());
    out.append(object.substr(0, span->first)).append(api_version).append(object.substr(span->second));
    return out;
  }
  boost::system::error_code error;
  boost::json::value value = boost::json::parse(object, error);
  if (error || !value.is_object()) return std::string(object);
  value.as_object()["apiVersion"] = api_version;
  return boost::json::serialize(value);
}

storage::KeyValue NoneConversionStorage::served(storage::KeyValue kv) const {
  kv.value = with_api_version(kv.value, served_);
  return kv;
}

asio::awaitable<storage::KeyValue> NoneConversionStorage::create(std::string key, std::string value,
                                                                 storage::WriteOptions options) {
  auto pending = backend_.create(std::move(key), with_api_version(value, stored_), options);
  storage::KeyValue created = co_await std::move(pending);
  co_return served(std::move(created));
}

asio::awaitable<storage::KeyValue> NoneConversionStorage::remove(std::string key,
                                                                 storage::PreconditionCheck preconditions) {
  storage::KeyValue removed = co_await backend_.remove(std::move(key), std::move(preconditions));
  co_return served(std::move(removed));
}

asio::awaitable<std::optional<storage::KeyValue>> NoneConversionStorage::get(std::string key,
                                                                             storage::GetOptions options) {
  std::optional<storage::KeyValue> found = co_await backend_.get(std::move(key), std::move(options));
  if (found) found = served(std::move(*found));
  co_return found;
}

asio::awaitable<storage::ListResult> NoneConversionStorage::list(std::string key_prefix, storage::ListOptions options) {
  storage::ListResult result = co_await backend_.list(std::move(key_prefix), std::move(options));
  for (auto& item : result.items) item.value = with_api_version(item.value, served_);
  co_return result;
}

asio::awaitable<storage::KeyValue> NoneConversionStorage::guaranteed_update(std::string key, bool ignore_not_found,
                                                                            storage::PreconditionCheck preconditions,
                                                                            storage::TryUpdate try_update,
                                                                            storage::WriteOptions options) {
  storage::TryUpdate converting = [this, try_update = std::move(try_update)](
                                      const storage::KeyValue* current) -> std::optional<std::string> {
    std::optional<storage::KeyValue> as_served;
    if (current) as_served = served(*current);
    std::optional<std::string> wanted = try_update(as_served ? &*as_served : nullptr);
    if (wanted) wanted = with_api_version(*wanted, stored_);
    return wanted;
  };
  storage::PreconditionCheck checks;
  if (preconditions)
    checks = [this, preconditions = std::move(preconditions)](const storage::KeyValue& current) {
      preconditions(served(current));
    };
  auto pending = backend_.guaranteed_update(std::move(key), ignore_not_found, std::move(checks), std::move(converting),
                                            options);
  storage::KeyValue updated = co_await std::move(pending);
  co_return served(std::move(updated));
}

asio::awaitable<std::unique_ptr<storage::WatchStream>> NoneConversionStorage::watch(std::string key,
                                                                                    storage::WatchOptions options) {
  std::unique_ptr<storage::WatchStream> inner = co_await backend_.watch(std::move(key), std::move(options));
  co_return std::make_unique<ConvertingWatch>(std::move(inner), served_);
}

}  // namespace kapi::apiextensions
