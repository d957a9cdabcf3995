#pragma once
// The protobuf wire format at its lowest level, for the transcoder: reading tags and values out of a byte string
// with every length checked (a truncated or hostile message is a TranscodeError, never a read past the end), and
// appending them to one. Go's messages ("unexpected EOF", "proto: integer overflow") are kept.
#include "server/schema/transcoder.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace kapi::schema::wire {

enum WireType : int { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kStartGroup = 3, kEndGroup = 4, kFixed32 = 5 };

class Reader {
 public:
  explicit Reader(std::string_view data) : data_(data) {}

  bool done() const { return at_ == data_.size(); }

  std::uint64_t varint() {
    std::uint64_t value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (at_ == data_.size()) throw TranscodeError("unexpected EOF");
      const auto byte = static_cast<unsigned char>(data_[at_++]);
      value |= static_cast<std::uint64_t>(byte & 0x7F) << shift;
      if (byte < 0x80) return value;
    }
    throw TranscodeError("proto: integer overflow");
  }

  std::string_view take(std::uint64_t size) {
    if (size > data_.size() - at_) throw TranscodeError("unexpected EOF");
    std::string_view out = data_.substr(at_, static_cast<std::size_t>(size));
    at_ += static_cast<std::size_t>(size);
    return out;
  }

  std::uint64_t fixed(int bytes) {
    std::string_view raw = take(static_cast<std::uint64_t>(bytes));
    std::uint64_t value = 0;
    for (int i = bytes - 1; i >= 0; --i) value = (value << 8) | static_cast<unsigned char>(raw[static_cast<std::size_t>(i)]);
    return value;
  }

  std::string_view length_delimited() { return take(varint()); }

  // The next tag as field number and wire type; field number 0 is illegal, as in Go.
  std::pair<std::uint64_t, int> tag() {
    const std::uint64_t tag = varint();
    const auto wire_type = static_cast<int>(tag & 7);
    const std::uint64_t number = tag >> 3;
    if (number == 0) throw TranscodeError("proto: illegal tag 0 (wire type " + std::to_string(wire_type) + ")");
    return {number, wire_type};
  }

  // Skips a value of a field the schema does not know.
  void skip(int wire_type) {
    switch (wire_type) {
      case kVarint: varint(); return;
      case kFixed64: take(8); return;
      case kLengthDelimited: length_delimited(); return;
      case kFixed32: take(4); return;
      default: throw TranscodeError("proto: illegal wireType " + std::to_string(wire_type));
    }
  }

 private:
  std::string_view data_;
  std::size_t at_ = 0;
};

inline void put_varint(std::string& out, std::uint64_t value) {
  while (value >= 0x80) {
    out += static_cast<char>((value & 0x7F) | 0x80);
    value >>= 7;
  }
  out += static_cast<char>(value);
}

inline void put_tag(std::string& out, int number, int wire_type) {
  put_varint(out, (static_cast<std::uint64_t>(number) << 3) | static_cast<std::uint64_t>(wire_type));
}

inline void put_fixed(std::string& out, std::uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i, value >>= 8) out += static_cast<char>(value & 0xFF);
}

inline void put_bytes(std::string& out, int number, std::string_view bytes) {
  put_tag(out, number, kLengthDelimited);
  put_varint(out, bytes.size());
  out.append(bytes);
}

inline void put_varint_field(std::string& out, int number, std::uint64_t value) {
  put_tag(out, number, kVarint);
  put_varint(out, value);
}

}  // namespace kapi::schema::wire
