#include "model/mlp.h"

#include "util/random.h"

#include <cmath>

namespace hwl {

Mlp::Mlp(const ModelSpec& spec) {
    spec_ = spec;
    for (std::size_t i = 1; i < spec.layers.size(); ++i) {
        const auto in = spec.layers[i - 1], out = spec.layers[i];
        const auto index = std::to_string(2 * (i - 1)); // nn.Sequential index of the Linear
        Layer layer{in, out, 0, 0};
        layer.weight = layout_.add(index + ".weight", {out, in});
        layer.bias = layout_.add(index + ".bias", {out});
        layers_.push_back(layer);
    }
}

void Mlp::initialize(float* params, std::uint64_t seed) const {
    Rng rng(seed);
    for (const auto& layer : layers_) {
        const float bound = 1.0f / std::sqrt(float(layer.in));
        for (std::int64_t i = 0; i < layer.in * layer.out; ++i)
            params[layer.weight + i] = rng.uniform(-bound, bound);
        for (std::int64_t i = 0; i < layer.out; ++i)
            params[layer.bias + i] = rng.uniform(-bound, bound);
    }
}

std::string Mlp::incompatibility(const DatasetShape& data) const {
    if (data.dim >= 0 && data.dim != spec_.layers.front())
        return "the model's input width is " + std::to_string(spec_.layers.front()) +
               " but the dataset has " + std::to_string(data.dim) +
               (data.sparse ? " tokens in its vocabulary" : " features") +
               ": make the model's first width " + std::to_string(data.dim);
    if (data.numClasses > spec_.layers.back())
        return "the model's output width is " + std::to_string(spec_.layers.back()) +
               " but the dataset has " + std::to_string(data.numClasses) +
               " classes: make the model's last width at least " + std::to_string(data.numClasses);
    return {};
}

double Mlp::flopsPerSample() const {
    // Forward 2*in*out per layer; backward 2*in*out for the weight gradient
    // and 2*in*out for the input gradient (not needed for the first layer).
    double flops = 0;
    for (std::size_t i = 0; i < layers_.size(); ++i) {
        const double mac = double(layers_[i].in) * double(layers_[i].out);
        flops += 2 * mac + 2 * mac + (i > 0 ? 2 * mac : 0);
    }
    return flops;
}

} // namespace hwl
