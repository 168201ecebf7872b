#pragma once
// ProtoWriter: the protocol buffers wire format, written by hand: varints,
// 32-bit floats and length-delimited fields (strings, bytes, packed
// repeated numbers, nested messages), enough to write a message without a
// protobuf library (io/onnxgraph.h writes ONNX's ModelProto with it).
// https://protobuf.dev/programming-guides/encoding/
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace hwl {

class ProtoWriter {
public:
    /// Field `field` as a varint (wire type 0): int32, int64, enum, bool. A
    /// negative value is written as its 64-bit two's complement (ten bytes),
    /// as protobuf writes a negative int32 or int64.
    void varint(std::uint32_t field, std::int64_t value);
    /// Field `field` as a little-endian IEEE float (wire type 5).
    void fixed32(std::uint32_t field, float value);
    /// Field `field` as length-delimited bytes (wire type 2): a string, bytes.
    void bytes(std::uint32_t field, std::string_view value);
    /// A nested message: its bytes, length-delimited.
    void message(std::uint32_t field, const ProtoWriter& nested) { bytes(field, nested.out_); }
    /// A packed repeated int64 field: the varints, length-delimited.
    void packedVarints(std::uint32_t field, std::span<const std::int64_t> values);

    const std::string& data() const { return out_; }

    /// The varint encoding of `value` (seven bits a byte, low first, the high
    /// bit set on every byte but the last).
    static std::string encodeVarint(std::uint64_t value);

private:
    void tag(std::uint32_t field, std::uint32_t wireType);

    std::string out_;
};

} // namespace hwl
