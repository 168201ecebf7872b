#pragma once
// OnnxGraph: an ONNX model put together node by node and written as ONNX's
// ModelProto (onnx.proto's field numbers, through io/protowire.h): graph
// inputs and outputs, nodes of the default domain with integer attributes,
// Constant nodes, and float32 initializers stored as raw little-endian data.
// What the engine's models become is io/onnxexport.cpp's business; this file
// knows the format only.
#include "io/protowire.h"
#include "io/tensorfile.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace hwl {

/// ONNX's TensorProto.DataType values this writer uses.
enum class OnnxType : int { Float = 1, Int64 = 7 };

/// One dimension of a graph input or output: a fixed size, or a named one
/// (dim_param) that the caller chooses, as the batch.
struct OnnxDim {
    std::int64_t size = -1;
    std::string name;
    OnnxDim(std::int64_t fixed) : size(fixed) {} // NOLINT: a size reads as a dimension
    OnnxDim(const char* symbolic) : name(symbolic) {}
};

/// An INT or INTS attribute of a node.
struct OnnxAttribute {
    std::string name;
    std::vector<std::int64_t> ints;
    bool list = false; ///< INTS rather than INT
    static OnnxAttribute integer(std::string name, std::int64_t value) {
        return {std::move(name), {value}, false};
    }
    static OnnxAttribute integers(std::string name, std::vector<std::int64_t> values) {
        return {std::move(name), std::move(values), true};
    }
};

/// What the ModelProto says about itself besides its graph.
struct OnnxModelInfo {
    std::int64_t irVersion = 0;
    std::int64_t opset = 0; ///< of the default domain, ai.onnx
    std::string producerName, producerVersion, graphName, docString;
    std::map<std::string, std::string> metadata; ///< metadata_props
};

class OnnxGraph {
public:
    void input(const std::string& name, OnnxType type, const std::vector<OnnxDim>& shape);
    void output(const std::string& name, OnnxType type, const std::vector<OnnxDim>& shape);
    /// A float32 initializer named as the tensor, shape and values copied.
    void initializer(const TensorRef& tensor);
    /// A node of op `op` (ai.onnx) named `name`.
    void node(const std::string& op, const std::string& name,
              const std::vector<std::string>& inputs, const std::vector<std::string>& outputs,
              const std::vector<OnnxAttribute>& attributes = {});
    /// A Constant node whose output `name` is an int64 tensor: `values` of
    /// shape [size] or, with `scalar`, the one value of shape [].
    void constantInts(const std::string& name, const std::vector<std::int64_t>& values,
                      bool scalar = false);
    /// A Constant node whose output `name` is the float32 scalar `value`.
    void constantFloat(const std::string& name, float value);

    /// The serialized ModelProto of this graph.
    std::string modelBytes(const OnnxModelInfo& info) const;

private:
    void constantNode(const std::string& name, const ProtoWriter& tensor);

    ProtoWriter nodes_, initializers_, inputs_, outputs_;
};

} // namespace hwl
