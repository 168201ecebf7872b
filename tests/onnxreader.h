#pragma once
// A tiny reader of the protocol buffers wire format and of the parts of
// ONNX's ModelProto that io/onnxexport.cpp writes, for tst_onnx: it reads the
// file back without sharing a line with the writer (field numbers from
// onnx.proto, typed in again here).
#include <cstdint>
#include <cstring>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace hwl::test::onnx {

/// One field of a message: a varint's value, or a length-delimited field's
/// bytes, or a fixed32's four bytes.
struct Field {
    std::uint32_t number = 0;
    std::uint32_t wireType = 0;
    std::uint64_t value = 0;
    std::string_view bytes;
};

inline std::uint64_t readVarint(std::string_view data, std::size_t& at) {
    std::uint64_t value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (at >= data.size())
            throw std::runtime_error("truncated varint");
        const auto byte = std::uint8_t(data[at++]);
        value |= std::uint64_t(byte & 0x7F) << shift;
        if (!(byte & 0x80))
            return value;
    }
    throw std::runtime_error("varint longer than ten bytes");
}

/// Every field of a message, in order; throws on a malformed message.
inline std::vector<Field> fields(std::string_view data) {
    std::vector<Field> out;
    std::size_t at = 0;
    while (at < data.size()) {
        const std::uint64_t key = readVarint(data, at);
        Field f{std::uint32_t(key >> 3), std::uint32_t(key & 7), 0, {}};
        if (f.wireType == 0) {
            f.value = readVarint(data, at);
        } else if (f.wireType == 2) {
            const std::uint64_t n = readVarint(data, at);
            if (n > data.size() - at)
                throw std::runtime_error("length-delimited field runs past its message");
            f.bytes = data.substr(at, n);
            at += n;
        } else if (f.wireType == 5) {
            if (data.size() - at < 4)
                throw std::runtime_error("truncated fixed32");
            f.bytes = data.substr(at, 4);
            at += 4;
        } else {
            throw std::runtime_error("unexpected wire type " + std::to_string(f.wireType));
        }
        out.push_back(f);
    }
    return out;
}

struct Tensor {
    std::string name;
    std::vector<std::int64_t> dims;
    std::int64_t dataType = 0;
    std::string raw;
};
struct Attribute {
    std::string name;
    std::int64_t type = 0;
    std::vector<std::int64_t> ints; ///< i, or ints
    Tensor tensor;
};
struct Node {
    std::string op, name;
    std::vector<std::string> inputs, outputs;
    std::vector<Attribute> attributes;
};
struct Value {
    std::string name;
    std::int64_t elemType = 0;
    std::vector<std::string> dims; ///< a size as its digits, a named one as its name
};
struct Model {
    std::int64_t irVersion = 0, opset = -1;
    std::string producer, graphName;
    std::map<std::string, std::string> metadata;
    std::vector<Node> nodes;
    std::vector<Tensor> initializers;
    std::vector<Value> inputs, outputs;
};

inline std::vector<std::int64_t> packedOrSingle(const Field& f) {
    if (f.wireType == 0)
        return {std::int64_t(f.value)};
    std::vector<std::int64_t> out;
    std::size_t at = 0;
    while (at < f.bytes.size())
        out.push_back(std::int64_t(readVarint(f.bytes, at)));
    return out;
}

inline Tensor readTensor(std::string_view data) {
    Tensor t;
    for (const Field& f : fields(data)) {
        if (f.number == 1)
            for (auto d : packedOrSingle(f))
                t.dims.push_back(d);
        else if (f.number == 2)
            t.dataType = std::int64_t(f.value);
        else if (f.number == 8)
            t.name = f.bytes;
        else if (f.number == 9)
            t.raw = f.bytes;
    }
    return t;
}

inline Node readNode(std::string_view data) {
    Node n;
    for (const Field& f : fields(data)) {
        if (f.number == 1)
            n.inputs.emplace_back(f.bytes);
        else if (f.number == 2)
            n.outputs.emplace_back(f.bytes);
        else if (f.number == 3)
            n.name = f.bytes;
        else if (f.number == 4)
            n.op = f.bytes;
        else if (f.number == 5) {
            Attribute a;
            for (const Field& g : fields(f.bytes)) {
                if (g.number == 1)
                    a.name = g.bytes;
                else if (g.number == 20)
                    a.type = std::int64_t(g.value);
                else if (g.number == 3 || g.number == 8)
                    for (auto v : packedOrSingle(g))
                        a.ints.push_back(v);
                else if (g.number == 5)
                    a.tensor = readTensor(g.bytes);
            }
            n.attributes.push_back(a);
        }
    }
    return n;
}

/// TypeProto.Tensor: the element type and the shape's dimensions.
inline void readTensorType(std::string_view data, Value& v) {
    for (const Field& t : fields(data)) {
        if (t.number == 1) {
            v.elemType = std::int64_t(t.value);
        } else if (t.number == 2) {
            for (const Field& dim : fields(t.bytes)) // TensorShapeProto.Dimension
                for (const Field& d : fields(dim.bytes))
                    v.dims.push_back(d.number == 1 ? std::to_string(d.value)
                                                   : std::string(d.bytes));
        }
    }
}

inline Value readValue(std::string_view data) {
    Value v;
    for (const Field& f : fields(data)) {
        if (f.number == 1)
            v.name = f.bytes;
        else if (f.number == 2)
            for (const Field& tensorType : fields(f.bytes)) // TypeProto
                readTensorType(tensorType.bytes, v);
    }
    return v;
}

inline Model readModel(std::string_view data) {
    Model m;
    for (const Field& f : fields(data)) {
        if (f.number == 1)
            m.irVersion = std::int64_t(f.value);
        else if (f.number == 2)
            m.producer = f.bytes;
        else if (f.number == 8)
            for (const Field& o : fields(f.bytes))
                if (o.number == 2)
                    m.opset = std::int64_t(o.value);
        if (f.number == 14) {
            std::string key, value;
            for (const Field& e : fields(f.bytes))
                (e.number == 1 ? key : value) = e.bytes;
            m.metadata[key] = value;
        }
        if (f.number != 7)
            continue;
        for (const Field& g : fields(f.bytes)) {
            if (g.number == 1)
                m.nodes.push_back(readNode(g.bytes));
            else if (g.number == 2)
                m.graphName = g.bytes;
            else if (g.number == 5)
                m.initializers.push_back(readTensor(g.bytes));
            else if (g.number == 11)
                m.inputs.push_back(readValue(g.bytes));
            else if (g.number == 12)
                m.outputs.push_back(readValue(g.bytes));
        }
    }
    return m;
}

} // namespace hwl::test::onnx
