#include "server/schema/storage_codec.h"

#include "server/schema/transcoder.h"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

namespace kapi::schema {
namespace {

class StorageCodec final : public storage::value::Transformer {
 public:
  StorageCodec(const Catalog& catalog, bool protobuf) : transcoder_(catalog), protobuf_(protobuf) {}

  std::string to_storage(std::string_view value, std::string_view) const override {
    if (!protobuf_) return std::string(value);
    boost::system::error_code error;
    boost::json::value parsed = boost::json::parse(value, error);
    if (error || !parsed.is_object()) return std::string(value);
    const boost::json::object& object = parsed.as_object();
    const boost::json::value* api_version = object.if_contains("apiVersion");
    const boost::json::value* kind = object.if_contains("kind");
    if (!api_version || !kind || !api_version->is_string() || !kind->is_string() ||
        !transcoder_.message_for(api_version->as_string(), kind->as_string()))
      return std::string(value);
    return transcoder_.encode(object);
  }

  storage::value::FromStorage from_storage(std::string_view stored, std::string_view) const override {
    if (!stored.starts_with(kProtobufPrefix)) return {std::string(stored), false};
    try {
      return {boost::json::serialize(transcoder_.decode(stored)), false};
    } catch (const TranscodeError& error) {
      throw storage::value::TransformError(error.what());
    }
  }

 private:
  Transcoder transcoder_;
  bool protobuf_;
};

}  // namespace

std::shared_ptr<const storage::value::Transformer> storage_codec(const Catalog& catalog, std::string_view media_type) {
  return std::make_shared<StorageCodec>(catalog, media_type == kProtobufMediaType);
}

}  // namespace kapi::schema
