#include "io/protowire.h"

#include <bit>
#include <cstring>

namespace hwl {

namespace {
enum WireType : std::uint32_t { kVarint = 0, kLengthDelimited = 2, kFixed32 = 5 };
} // namespace

std::string ProtoWriter::encodeVarint(std::uint64_t value) {
    std::string out;
    while (value >= 0x80) {
        out += char((value & 0x7F) | 0x80);
        value >>= 7;
    }
    out += char(value);
    return out;
}

void ProtoWriter::tag(std::uint32_t field, std::uint32_t wireType) {
    out_ += encodeVarint((std::uint64_t(field) << 3) | wireType);
}

void ProtoWriter::varint(std::uint32_t field, std::int64_t value) {
    tag(field, kVarint);
    out_ += encodeVarint(std::uint64_t(value));
}

void ProtoWriter::fixed32(std::uint32_t field, float value) {
    static_assert(std::endian::native == std::endian::little, "the wire format is little-endian");
    tag(field, kFixed32);
    char bytes[4];
    std::memcpy(bytes, &value, 4);
    out_.append(bytes, 4);
}

void ProtoWriter::bytes(std::uint32_t field, std::string_view value) {
    tag(field, kLengthDelimited);
    out_ += encodeVarint(value.size());
    out_ += value;
}

void ProtoWriter::packedVarints(std::uint32_t field, std::span<const std::int64_t> values) {
    std::string packed;
    for (const std::int64_t v : values)
        packed += encodeVarint(std::uint64_t(v));
    bytes(field, packed);
}

} // namespace hwl
