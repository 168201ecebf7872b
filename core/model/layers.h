#pragma once
// A network written as a list of layers over an input shape (`--model
// net:SHAPE:LAYER,LAYER,...`): the layers, their text, and what each one
// makes of the shape before it. One description for the engine's model
// (model/net.h), its CPU arithmetic, its ONNX graph and the window's model
// editor, so all four agree on every shape and parameter count.
#include <cstdint>
#include <string>
#include <vector>

namespace hwl {

/// The shape of one sample between two layers: an image of `channels`
/// planes of height x width, or (height == 0) a vector of `channels` values.
struct TensorShape {
    std::int64_t channels = 0, height = 0, width = 0;
    bool image() const { return height > 0; }
    std::int64_t size() const { return image() ? channels * height * width : channels; }
    bool operator==(const TensorShape&) const = default;
};

/// One layer. Text forms (k: kernel side, s: stride, p: zero padding):
///   convCkK[sS][pP]  nn.Conv2d(in, C, K, stride=S (1), padding=P (0))
///   maxpoolK[sS]     nn.MaxPool2d(K, stride=S (K))
///   avgpoolK[sS]     nn.AvgPool2d(K, stride=S (K))
///   relu tanh sigmoid gelu
///   dropout[P] dropout2d[P]  nn.Dropout / nn.Dropout2d; without P, the
///                    experiment's dropout field
///   flatten          an image to a vector (channel, row, column order)
///   fcN              nn.Linear(in, N) over a vector
struct Layer {
    enum class Op {
        Conv,
        MaxPool,
        AvgPool,
        Relu,
        Tanh,
        Sigmoid,
        Gelu,
        Dropout,
        Dropout2d,
        Flatten,
        Fc
    };
    Op op = Op::Relu;
    std::int64_t size = 0;   ///< conv: output channels; fc: output width
    std::int64_t kernel = 0; ///< conv, pools
    std::int64_t stride = 1; ///< conv, pools
    std::int64_t padding = 0;
    double p = -1; ///< dropouts: the probability; -1: the experiment's dropout field

    bool operator==(const Layer&) const = default;
    bool hasParameters() const { return op == Op::Conv || op == Op::Fc; }
    bool isDropout() const { return op == Op::Dropout || op == Op::Dropout2d; }
    /// The dropout probability this layer uses with the experiment's `field`.
    double probability(double field) const { return p < 0 ? field : p; }
};

/// What a layer makes of the shape before it.
struct LayerInfo {
    Layer layer;
    std::string text;         ///< as written in --model, e.g. "conv10k5"
    TensorShape in, out;      ///< one sample's shape before and after
    std::int64_t weights = 0; ///< conv: C x in-channels x K x K; fc: N x in
    std::int64_t biases = 0;  ///< conv: C; fc: N
    double macsPerSample = 0; ///< the forward pass's multiply-adds
};

/// The layers of a `net:` text (after "net:SHAPE:"), with InputError naming
/// the layer and the forms accepted.
std::vector<Layer> parseLayers(const std::string& list);
/// "1x28x28" (channels x height x width) or "784" (a vector).
TensorShape parseInputShape(const std::string& text);
std::string toString(const Layer& layer);
std::string toString(const TensorShape& shape);

/// Each layer over its input: the shapes and parameter counts, or
/// InputError naming the first layer that does not fit and what to write.
std::vector<LayerInfo> describeLayers(const TensorShape& input, const std::vector<Layer>& layers);

/// Every layer's weights and biases.
std::int64_t parameterCount(const std::vector<LayerInfo>& layers);

} // namespace hwl
