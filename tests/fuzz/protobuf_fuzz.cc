// Fuzzes kube's protobuf wire form as kapi transcodes it (server/schema/transcoder.h), both ways, for the built-in
// kinds of the catalog: a JSON object encoded into its "k8s\0" envelope, as kapi writes objects to protobuf
// clients and to storage, and arbitrary bytes decoded to JSON, as kapi reads protobuf request bodies and stored
// objects that kube-apiserver wrote.
//
// The first input byte chooses what the rest is: even, a JSON object (kube's protobuf clients never send JSON, but
// every object kapi stores or answers with is encoded from it); odd, protobuf bytes: an envelope when they start
// with "k8s\0", else the raw message of one, so that mutations reach the messages without rebuilding the envelope.
// Its other bits choose a kind from kKinds: the envelope's, and the one an object without apiVersion and kind is
// labelled with, as the handlers label a body with its resource's kind.
//
// The transcoder documents TranscodeError for what it cannot encode or decode; anything else escaping, a crash, a
// sanitizer report or a timeout is a finding. So is a round trip that does not hold: what kapi encoded must decode,
// what it decoded must encode, and decoding the encoding of a decoded object must give that object back (apart from
// null members, as Go's own JSON round trip loses them) and, from then on, exactly that object.
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

#include "server/schema/catalog.h"
#include "server/schema/transcoder.h"
#include "tests/fuzz/finding.h"

namespace {

using kapi::fuzz::finding;

namespace json = boost::json;
using kapi::schema::TranscodeError;
using kapi::schema::TypeMeta;

// Kinds with each of the special types (Time, MicroTime, Duration, Quantity, IntOrString, RawExtension, FieldsV1,
// string lists), maps of messages, +inline members, pointers and lists, and the meta kinds every group serves.
constexpr std::array<std::pair<std::string_view, std::string_view>, 16> kKinds{{
    {"v1", "ConfigMap"},
    {"v1", "Pod"},
    {"apps/v1", "Deployment"},
    {"v1", "Service"},
    {"batch/v1", "CronJob"},
    {"v1", "Secret"},
    {"v1", "Node"},
    {"v1", "Status"},
    {"autoscaling/v2", "HorizontalPodAutoscaler"},
    {"events.k8s.io/v1", "Event"},
    {"coordination.k8s.io/v1", "Lease"},
    {"v1", "ConfigMapList"},
    {"v1", "WatchEvent"},
    {"admissionregistration.k8s.io/v1", "ValidatingWebhookConfiguration"},
    {"authentication.k8s.io/v1", "TokenReview"},
    {"flowcontrol.apiserver.k8s.io/v1", "FlowSchema"},
}};

const kapi::schema::Transcoder& transcoder() {
  static const kapi::schema::Catalog catalog = kapi::schema::Catalog::builtin();
  static const kapi::schema::Transcoder transcoder(catalog);
  return transcoder;
}

// kapi's own output, which must decode.
json::object decode_encoded(const std::string& bytes, std::string_view from) {
  try {
    return transcoder().decode(bytes);
  } catch (const TranscodeError& e) {
    finding(std::string("what kapi encoded does not decode: ") + e.what(), from);
  }
}

// A decoded object encoded and decoded again.
json::object round_trip(const json::object& decoded) {
  std::string bytes;
  try {
    bytes = transcoder().encode(decoded);
  } catch (const TranscodeError& e) {
    finding(std::string("a decoded object does not encode: ") + e.what(), json::serialize(decoded));
  }
  return decode_encoded(bytes, json::serialize(decoded));
}

// The value without its objects' null members.
json::value without_null_members(const json::value& value) {
  if (value.is_array()) {
    json::array out;
    for (const auto& item : value.get_array()) out.push_back(without_null_members(item));
    return out;
  }
  if (!value.is_object()) return value;
  json::object out;
  for (const auto& [key, member] : value.get_object())
    if (!member.is_null()) out.emplace(key, without_null_members(member));
  return out;
}

// What a protobuf client sent is what kapi stores and answers. Exactly so once it went through kapi's JSON: the
// first decoding may write null for a pointer to a message Go writes as null (an empty FieldsV1 or RawExtension, a
// zero *Time), which Go's JSON decoding (and so the encoder) reads as no value, as kube's JSON clients do.
void check_round_trip(const json::object& decoded) {
  const json::object again = round_trip(decoded);
  if (again != decoded && without_null_members(again) != without_null_members(decoded))
    finding("a decoded object reads back otherwise", json::serialize(decoded) + " became " + json::serialize(again));
  if (const json::object third = round_trip(again); third != again)
    finding("a decoded object changes on every round trip",
            json::serialize(again) + " became " + json::serialize(third));
}

void fuzz_json(std::string_view text, const TypeMeta& kind) {
  boost::system::error_code error;
  json::parse_options options;
  options.max_depth = 1000;  // registry::kMaxObjectDepth, as request bodies are parsed
  json::value value = json::parse(text, error, {}, options);
  if (error || !value.is_object()) return;
  json::object& object = value.as_object();
  if (!object.contains("apiVersion")) object["apiVersion"] = kind.api_version;
  if (!object.contains("kind")) object["kind"] = kind.kind;
  std::string bytes;
  try {
    bytes = transcoder().encode(object);
  } catch (const TranscodeError&) {
    return;  // a value of the wrong type, or a kind without a schema
  }
  check_round_trip(decode_encoded(bytes, text));
}

void fuzz_protobuf(std::string_view bytes, const TypeMeta& kind) {
  std::string envelope(bytes);
  if (!bytes.starts_with(kapi::schema::kProtobufPrefix))
    envelope = kapi::schema::write_envelope({.type_meta = kind, .raw = std::string(bytes)});
  json::object decoded;
  try {
    decoded = transcoder().decode(envelope, kind);
  } catch (const TranscodeError&) {
    return;
  }
  check_round_trip(decoded);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  const auto& [api_version, kind] = kKinds[(data[0] >> 1) % kKinds.size()];
  const TypeMeta type{std::string(api_version), std::string(kind)};
  if ((data[0] & 1) == 0) fuzz_json(rest, type);
  else fuzz_protobuf(rest, type);
  return 0;
}
