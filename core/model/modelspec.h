#pragma once
// What model to build, parsed from the `--model` text.
#include <cstdint>
#include <string>
#include <vector>

namespace hwl {

enum class Activation { Relu, Tanh, Sigmoid };

/// Text forms:
///   mlp:IN-H1-...-OUT[:relu|tanh|sigmoid]  fully connected, hidden activation (default relu);
///                                          mlp:IN-OUT is logistic regression
///   embedding-bag:V-D-C                    mean of D-dim embeddings of a sparse row's tokens
///                                          (weighted by their values), then linear D -> C
///   cnn:mnist                              PyTorch's examples/mnist_hogwild Net: two 5x5
///                                          convolutions, max-pool, dropout, two linear layers
///                                          over 28x28 one-channel images, 10 classes
struct ModelSpec {
    enum class Kind { Mlp, EmbeddingBag, Cnn };
    Kind kind = Kind::Mlp;
    std::vector<std::int64_t> layers{784, 128, 10}; ///< Mlp: widths, input first
    Activation activation = Activation::Relu;
    std::int64_t vocab = 0, dim = 0, classes = 0; ///< EmbeddingBag; classes also Cnn
    /// Cnn: the dropout probability while training (the experiment's
    /// `dropout` field, not part of the text) and the seed of its streams.
    double dropout = 0.5;
    std::uint64_t dropoutSeed = 0;

    std::int64_t inputWidth() const {
        return kind == Kind::Mlp ? layers.front() : kind == Kind::Cnn ? 28 * 28 : vocab;
    }
    std::int64_t outputWidth() const { return kind == Kind::Mlp ? layers.back() : classes; }
};

/// Throws InputError (field `model`) naming the problem and the accepted forms.
ModelSpec parseModelSpec(const std::string& text);
std::string toString(const ModelSpec& spec);
const char* toString(Activation a);

} // namespace hwl
