#include "model/cnn.h"

#include "util/random.h"

#include <cmath>

namespace hwl {

Cnn::Cnn(const ModelSpec& spec) {
    spec_ = spec;
    const Shape& s = shape_;
    const std::int64_t k = s.kernel;
    offsets_.conv1Weight = layout_.add("conv1.weight", {s.conv1, 1, k, k});
    offsets_.conv1Bias = layout_.add("conv1.bias", {s.conv1});
    offsets_.conv2Weight = layout_.add("conv2.weight", {s.conv2, s.conv1, k, k});
    offsets_.conv2Bias = layout_.add("conv2.bias", {s.conv2});
    offsets_.fc1Weight = layout_.add("fc1.weight", {s.hidden, s.flat()});
    offsets_.fc1Bias = layout_.add("fc1.bias", {s.hidden});
    offsets_.fc2Weight = layout_.add("fc2.weight", {s.classes, s.hidden});
    offsets_.fc2Bias = layout_.add("fc2.bias", {s.classes});
}

void Cnn::initialize(float* params, std::uint64_t seed) const {
    // nn.Conv2d and nn.Linear both draw weight and bias from U(-1/sqrt(fan_in),
    // 1/sqrt(fan_in)) (kaiming_uniform_ with a = sqrt(5)); fan_in is a
    // convolution's in_channels * kernel * kernel.
    Rng rng(seed);
    for (const ParamTensor& t : layout_.tensors()) {
        if (t.shape.size() < 2)
            continue; // a bias: drawn with its weight below
        std::int64_t fanIn = 1;
        for (std::size_t d = 1; d < t.shape.size(); ++d)
            fanIn *= t.shape[d];
        const float bound = 1.0f / std::sqrt(float(fanIn));
        for (std::int64_t i = 0; i < t.size + t.shape[0]; ++i) // the bias follows its weight
            params[t.offset + i] = rng.uniform(-bound, bound);
    }
}

std::string Cnn::incompatibility(const DatasetShape& data) const {
    const std::int64_t pixels = shape_.side * shape_.side;
    if (data.sparse)
        return "cnn:mnist needs dense 28x28 images (fashion-mnist or idx:DIR), but this dataset "
               "is sparse";
    if (data.dim >= 0 && data.dim != pixels)
        return "cnn:mnist reads 28x28 one-channel images (784 features) but the dataset has " +
               std::to_string(data.dim) +
               " features: use fashion-mnist, an idx:DIR of 28x28 "
               "images, or a dataset of 784 features";
    if (data.numClasses > shape_.classes)
        return "cnn:mnist has 10 classes but the dataset has " + std::to_string(data.numClasses) +
               ": use an mlp model for more classes";
    return {};
}

double Cnn::flopsPerSample() const {
    // Forward 2 MACs per weight use; backward twice that, less conv1's input gradient.
    const Shape& s = shape_;
    const double k2 = double(s.kernel * s.kernel);
    const double conv1 = double(s.side1() * s.side1()) * k2 * double(s.conv1);
    const double conv2 = double(s.side2() * s.side2()) * k2 * double(s.conv1 * s.conv2);
    const double fc = double(s.flat() * s.hidden + s.hidden * s.classes);
    return 2 * conv1 * 2 + 2 * (conv2 + fc) * 3;
}

} // namespace hwl
