#include "io/onnxgraph.h"

namespace hwl {

namespace {

// onnx.proto's field numbers (onnx 1.12's onnx/onnx.proto).
namespace model {
enum : std::uint32_t {
    IrVersion = 1,
    ProducerName = 2,
    ProducerVersion = 3,
    DocString = 6,
    Graph = 7,
    OpsetImport = 8,
    MetadataProps = 14
};
}
namespace opsetId {
enum : std::uint32_t { Version = 2 };
}
namespace entry {
enum : std::uint32_t { Key = 1, Value = 2 };
}
namespace graph {
enum : std::uint32_t { Node = 1, Name = 2, Initializer = 5, Input = 11, Output = 12 };
}
namespace node {
enum : std::uint32_t { Input = 1, Output = 2, Name = 3, OpType = 4, Attribute = 5 };
}
namespace attribute {
enum : std::uint32_t { Name = 1, I = 3, T = 5, Ints = 8, Type = 20 };
enum Kind : std::int64_t { Int = 2, Tensor = 4, IntList = 7 };
} // namespace attribute
namespace tensor {
enum : std::uint32_t { Dims = 1, DataType = 2, Name = 8, RawData = 9 };
}
namespace valueInfo {
enum : std::uint32_t { Name = 1, Type = 2 };
}
namespace typeProto {
enum : std::uint32_t { TensorType = 1, ElemType = 1, Shape = 2 };
}
namespace dimension {
enum : std::uint32_t { Dim = 1, Value = 1, Param = 2 };
}

ProtoWriter valueInfoOf(const std::string& name, OnnxType type, const std::vector<OnnxDim>& shape) {
    ProtoWriter dims;
    for (const OnnxDim& d : shape) {
        ProtoWriter dim;
        if (d.name.empty())
            dim.varint(dimension::Value, d.size);
        else
            dim.bytes(dimension::Param, d.name);
        dims.message(dimension::Dim, dim);
    }
    ProtoWriter tensorType;
    tensorType.varint(typeProto::ElemType, std::int64_t(type));
    tensorType.message(typeProto::Shape, dims);
    ProtoWriter typeOf;
    typeOf.message(typeProto::TensorType, tensorType);
    ProtoWriter info;
    info.bytes(valueInfo::Name, name);
    info.message(valueInfo::Type, typeOf);
    return info;
}

/// A TensorProto of `count` values of `size` bytes each at `data`, as raw
/// little-endian bytes (the writer's static_assert holds this machine to it).
ProtoWriter tensorOf(const std::string& name, OnnxType type, const std::vector<std::int64_t>& shape,
                     const void* data, std::size_t bytes) {
    ProtoWriter t;
    if (!shape.empty())
        t.packedVarints(tensor::Dims, shape);
    t.varint(tensor::DataType, std::int64_t(type));
    t.bytes(tensor::Name, name);
    t.bytes(tensor::RawData, std::string_view(static_cast<const char*>(data), bytes));
    return t;
}

} // namespace

void OnnxGraph::input(const std::string& name, OnnxType type, const std::vector<OnnxDim>& shape) {
    inputs_.message(graph::Input, valueInfoOf(name, type, shape));
}

void OnnxGraph::output(const std::string& name, OnnxType type, const std::vector<OnnxDim>& shape) {
    outputs_.message(graph::Output, valueInfoOf(name, type, shape));
}

void OnnxGraph::initializer(const TensorRef& t) {
    std::size_t count = 1;
    for (const std::int64_t d : t.shape)
        count *= std::size_t(d);
    initializers_.message(graph::Initializer, tensorOf(t.name, OnnxType::Float, t.shape, t.data,
                                                       count * sizeof(float)));
}

void OnnxGraph::node(const std::string& op, const std::string& name,
                     const std::vector<std::string>& inputs,
                     const std::vector<std::string>& outputs,
                     const std::vector<OnnxAttribute>& attributes) {
    ProtoWriter n;
    for (const std::string& in : inputs)
        n.bytes(node::Input, in);
    for (const std::string& out : outputs)
        n.bytes(node::Output, out);
    n.bytes(node::Name, name);
    n.bytes(node::OpType, op);
    for (const OnnxAttribute& a : attributes) {
        ProtoWriter attr;
        attr.bytes(attribute::Name, a.name);
        if (a.list)
            attr.packedVarints(attribute::Ints, a.ints);
        else
            attr.varint(attribute::I, a.ints.at(0));
        attr.varint(attribute::Type, a.list ? attribute::IntList : attribute::Int);
        n.message(node::Attribute, attr);
    }
    nodes_.message(graph::Node, n);
}

void OnnxGraph::constantNode(const std::string& name, const ProtoWriter& value) {
    ProtoWriter attr;
    attr.bytes(attribute::Name, "value");
    attr.message(attribute::T, value);
    attr.varint(attribute::Type, attribute::Tensor);
    ProtoWriter n;
    n.bytes(node::Output, name);
    n.bytes(node::Name, name);
    n.bytes(node::OpType, "Constant");
    n.message(node::Attribute, attr);
    nodes_.message(graph::Node, n);
}

void OnnxGraph::constantInts(const std::string& name, const std::vector<std::int64_t>& values,
                             bool scalar) {
    const std::vector<std::int64_t> shape =
        scalar ? std::vector<std::int64_t>{}
               : std::vector<std::int64_t>{std::int64_t(values.size())};
    constantNode(name, tensorOf(name, OnnxType::Int64, shape, values.data(),
                                values.size() * sizeof(std::int64_t)));
}

void OnnxGraph::constantFloat(const std::string& name, float value) {
    constantNode(name, tensorOf(name, OnnxType::Float, {}, &value, sizeof value));
}

std::string OnnxGraph::modelBytes(const OnnxModelInfo& info) const {
    // Each part already holds its fields' bytes: they are concatenated,
    // which protobuf reads as the repeated fields one after another.
    std::string body = nodes_.data();
    ProtoWriter name;
    name.bytes(graph::Name, info.graphName);
    body += name.data() + initializers_.data() + inputs_.data() + outputs_.data();

    ProtoWriter m;
    m.varint(model::IrVersion, info.irVersion);
    m.bytes(model::ProducerName, info.producerName);
    m.bytes(model::ProducerVersion, info.producerVersion);
    if (!info.docString.empty())
        m.bytes(model::DocString, info.docString);
    m.bytes(model::Graph, body);
    ProtoWriter opset;
    opset.varint(opsetId::Version, info.opset);
    m.message(model::OpsetImport, opset);
    for (const auto& [key, value] : info.metadata) {
        ProtoWriter e;
        e.bytes(entry::Key, key);
        e.bytes(entry::Value, value);
        m.message(model::MetadataProps, e);
    }
    return m.data();
}

} // namespace hwl
