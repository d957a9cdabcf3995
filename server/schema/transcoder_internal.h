#pragma once
// The transcoder's parts, shared by its three files: transcoder.cc (the public API, the envelope, which message an
// apiVersion and kind name), transcoder_decode.cc (protobuf to JSON) and transcoder_encode.cc (JSON to protobuf).
// Only server/schema uses it.
#include "server/schema/transcoder.h"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <string>
#include <string_view>

namespace kapi::schema::transcoding {

// A field's JSON name: its json_name option when it has one ("x-kubernetes-preserve-unknown-fields"), else its name.
const std::string& json_name(const google::protobuf::FieldDescriptor& field);
// Throws TranscodeError past kMaxMessageDepth; every recursion passes its depth through here.
void check_depth(int depth);

const google::protobuf::Descriptor* message_for(const Catalog& catalog, std::string_view api_version,
                                                std::string_view kind);
// An enveloped object as JSON, typeMeta first; `depth` counts envelopes embedded in RawExtensions.
boost::json::object decode_envelope(const Catalog& catalog, std::string_view bytes, const TypeMeta& defaults,
                                    int depth);

boost::json::value message_json(const Catalog& catalog, const google::protobuf::Descriptor& message,
                                std::string_view bytes, int depth);
void message_wire(const Catalog& catalog, const google::protobuf::Descriptor& message, const boost::json::value& value,
                  std::string& out, int depth);

}  // namespace kapi::schema::transcoding
