#include "model/net.h"

#include "util/random.h"

#include <cmath>

namespace hwl {

std::string tensorPrefix(const ModelSpec& spec, std::size_t index) {
    if (spec.kind == ModelSpec::Kind::Cnn) {
        // mnistLayers(): conv10k5 (0), conv20k5 (3), fc50 (8), fc10 (11)
        switch (index) {
        case 0:
            return "conv1";
        case 3:
            return "conv2";
        case 8:
            return "fc1";
        default:
            return "fc2";
        }
    }
    return std::to_string(index);
}

Net::Net(const ModelSpec& spec) {
    spec_ = spec;
    const std::vector<LayerInfo> infos = describeLayers(spec.input, spec.net);
    for (std::size_t i = 0; i < infos.size(); ++i) {
        Placed placed{infos[i]};
        const LayerInfo& info = placed.info;
        if (info.layer.hasParameters()) {
            const std::string prefix = tensorPrefix(spec, i);
            std::vector<std::int64_t> shape{info.out.size(), info.in.size()};
            if (info.layer.op == Layer::Op::Conv)
                shape = {info.layer.size, info.in.channels, info.layer.kernel, info.layer.kernel};
            placed.weight = layout_.add(prefix + ".weight", shape);
            placed.bias = layout_.add(prefix + ".bias", {info.biases});
        }
        layers_.push_back(std::move(placed));
    }
}

void Net::initialize(float* params, std::uint64_t seed) const {
    // nn.Conv2d and nn.Linear both draw weight and bias from U(-1/sqrt(fan_in),
    // 1/sqrt(fan_in)) (kaiming_uniform_ with a = sqrt(5)); fan_in is a
    // convolution's in_channels * kernel * kernel. The bias follows its weight.
    Rng rng(seed);
    for (const Placed& placed : layers_) {
        const LayerInfo& info = placed.info;
        if (!info.layer.hasParameters())
            continue;
        const std::int64_t fanIn = info.weights / info.biases;
        const float bound = 1.0f / std::sqrt(float(fanIn));
        for (std::int64_t i = 0; i < info.weights + info.biases; ++i)
            params[placed.weight + i] = rng.uniform(-bound, bound);
    }
}

std::string Net::incompatibility(const DatasetShape& data) const {
    const std::string name = toString(spec_);
    const std::int64_t width = spec_.input.size();
    const std::string shape = spec_.input.image() ? "images of " + toString(spec_.input) + " (" +
                                                        std::to_string(width) + " features)"
                                                  : std::to_string(width) + " features";
    if (data.sparse)
        return name + " needs dense " + shape +
               ", but this dataset is sparse: use mlp: or "
               "embedding-bag: for sparse data";
    if (data.dim >= 0 && data.dim != width)
        return name + " reads " + shape + " but the dataset has " + std::to_string(data.dim) +
               " features: change the network's input shape, or use a dataset of " +
               std::to_string(width) + " features";
    if (data.numClasses > spec_.classes)
        return name + " has " + std::to_string(spec_.classes) + " classes but the dataset has " +
               std::to_string(data.numClasses) + ": make the last layer fc" +
               std::to_string(data.numClasses);
    return {};
}

double Net::flopsPerSample() const {
    // Forward 2 FLOPs per multiply-add; backward twice that (the parameters'
    // gradient and the input's), less the first layer's input gradient.
    double flops = 0;
    for (std::size_t i = 0; i < layers_.size(); ++i) {
        const double macs = layers_[i].info.macsPerSample;
        flops += 2 * macs * (i == 0 ? 2 : 3);
    }
    return flops;
}

} // namespace hwl
