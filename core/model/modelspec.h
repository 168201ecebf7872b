#pragma once
// What model to build, parsed from the `--model` text.
#include "model/layers.h"

#include <cstdint>
#include <string>
#include <vector>

namespace hwl {

/// An MLP's hidden activation (Gelu: a layer list's gelu only).
enum class Activation { Relu, Tanh, Sigmoid, Gelu };

/// Text forms:
///   mlp:IN-H1-...-OUT[:relu|tanh|sigmoid]  fully connected, hidden activation (default relu);
///                                          mlp:IN-OUT is logistic regression
///   embedding-bag:V-D-C                    mean of D-dim embeddings of a sparse row's tokens
///                                          (weighted by their values), then linear D -> C
///   cnn:mnist                              PyTorch's examples/mnist_hogwild Net: two 5x5
///                                          convolutions, max-pool, dropout, two linear layers
///                                          over 28x28 one-channel images, 10 classes;
///                                          the layer list of mnistLayers()
///   net:SHAPE:LAYER,...                    a layer list (model/layers.h) over an input of
///                                          SHAPE, CxHxW or N (e.g. net:784:fc128,relu,fc10)
struct ModelSpec {
    enum class Kind { Mlp, EmbeddingBag, Cnn, Net };
    Kind kind = Kind::Mlp;
    std::vector<std::int64_t> layers{784, 128, 10}; ///< Mlp: widths, input first
    Activation activation = Activation::Relu;
    std::int64_t vocab = 0, dim = 0, classes = 0; ///< EmbeddingBag; classes also Cnn, Net
    TensorShape input;                            ///< Cnn, Net: one sample's shape
    std::vector<Layer> net;                       ///< Cnn, Net: the layers
    /// Cnn, Net: the probability of the dropout layers written without one
    /// (the experiment's `dropout` field, not part of the text), and the
    /// seed of the dropout streams.
    double dropout = 0.5;
    std::uint64_t dropoutSeed = 0;

    bool hasLayerList() const { return kind == Kind::Cnn || kind == Kind::Net; }
    std::int64_t inputWidth() const {
        return kind == Kind::Mlp ? layers.front() : hasLayerList() ? input.size() : vocab;
    }
    std::int64_t outputWidth() const { return kind == Kind::Mlp ? layers.back() : classes; }
    /// Whether a layer takes its probability from the experiment's dropout field.
    bool usesDropoutField() const;
    /// The mlp: text of the same network, or empty when it is not one (a
    /// Net of fc layers with one activation between them).
    std::string mlpEquivalent() const;
};

/// cnn:mnist's layers: conv10k5, maxpool2, relu, conv20k5, dropout2d,
/// maxpool2, relu, flatten, fc50, relu, dropout, fc10 over 1x28x28.
std::vector<Layer> mnistLayers();

/// Throws InputError (field `model`) naming the problem and the accepted forms.
ModelSpec parseModelSpec(const std::string& text);
std::string toString(const ModelSpec& spec);
const char* toString(Activation a);

} // namespace hwl
