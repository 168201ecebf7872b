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
struct ModelSpec {
    enum class Kind { Mlp, EmbeddingBag };
    Kind kind = Kind::Mlp;
    std::vector<std::int64_t> layers{784, 128, 10}; ///< Mlp: widths, input first
    Activation activation = Activation::Relu;
    std::int64_t vocab = 0, dim = 0, classes = 0; ///< EmbeddingBag

    std::int64_t inputWidth() const { return kind == Kind::Mlp ? layers.front() : vocab; }
    std::int64_t outputWidth() const { return kind == Kind::Mlp ? layers.back() : classes; }
};

/// Throws InputError (field `model`) naming the problem and the accepted forms.
ModelSpec parseModelSpec(const std::string& text);
std::string toString(const ModelSpec& spec);
const char* toString(Activation a);

} // namespace hwl
