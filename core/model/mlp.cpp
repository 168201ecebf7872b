#include "model/mlp.h"

#include "backend/cpu/batchgather.h"
#include "backend/cpu/eigenmaps.h"
#include "backend/cpu/softmaxloss.h"
#include "util/random.h"

#include <cmath>

namespace hwl {

namespace {
template <class T>
void activate(Activation a, const T* in, T* out, std::int64_t size) {
    switch (a) {
    case Activation::Relu:
        for (std::int64_t i = 0; i < size; ++i)
            out[i] = in[i] > T(0) ? in[i] : T(0);
        break;
    case Activation::Tanh:
        for (std::int64_t i = 0; i < size; ++i)
            out[i] = std::tanh(in[i]);
        break;
    case Activation::Sigmoid:
        for (std::int64_t i = 0; i < size; ++i)
            out[i] = T(1) / (T(1) + std::exp(-in[i]));
        break;
    }
}

/// delta *= act'(pre) where post = act(pre).
template <class T>
void activationBackward(Activation a, const T* pre, const T* post, T* delta, std::int64_t size) {
    switch (a) {
    case Activation::Relu:
        for (std::int64_t i = 0; i < size; ++i)
            delta[i] = pre[i] > T(0) ? delta[i] : T(0);
        break;
    case Activation::Tanh:
        for (std::int64_t i = 0; i < size; ++i)
            delta[i] *= T(1) - post[i] * post[i];
        break;
    case Activation::Sigmoid:
        for (std::int64_t i = 0; i < size; ++i)
            delta[i] *= post[i] * (T(1) - post[i]);
        break;
    }
}
} // namespace

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

std::string Mlp::incompatibility(const DatasetView& data) const {
    if (data.dim != spec_.layers.front())
        return "the model's input width is " + std::to_string(spec_.layers.front()) +
               " but the dataset has " + std::to_string(data.dim) +
               " features: make the first width of --model " + std::to_string(data.dim);
    if (data.numClasses > spec_.layers.back())
        return "the model's output width is " + std::to_string(spec_.layers.back()) +
               " but the dataset has " + std::to_string(data.numClasses) +
               " classes: make the last width of --model at least " +
               std::to_string(data.numClasses);
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

template <class T>
void Mlp::forward(const T* params, std::int64_t n, Workspace<T>& ws) const {
    const std::size_t count = layers_.size();
    ws.pre.resize(count);
    ws.post.resize(count);
    const T* input = ws.input.data();
    for (std::size_t l = 0; l < count; ++l) {
        const auto& layer = layers_[l];
        ws.pre[l].resize(std::size_t(n * layer.out));
        ConstMatrixMap<T> a(input, n, layer.in);
        ConstMatrixMap<T> w(params + layer.weight, layer.out, layer.in);
        ConstRowMap<T> b(params + layer.bias, layer.out);
        MatrixMap<T> z(ws.pre[l].data(), n, layer.out);
        z.noalias() = a * w.transpose();
        z.rowwise() += b;
        if (l + 1 < count) {
            ws.post[l].resize(ws.pre[l].size());
            activate(spec_.activation, ws.pre[l].data(), ws.post[l].data(), n * layer.out);
            input = ws.post[l].data();
        }
    }
}

template <class T>
T Mlp::train(const T* params, const DatasetView& data, const std::int64_t* rows, std::int64_t n,
             Workspace<T>& ws) const {
    gatherRows(data, rows, n, ws.input);
    forward(params, n, ws);

    const std::int64_t classes = layers_.back().out;
    ws.delta.resize(std::size_t(n * classes));
    const T lossSum =
        softmaxCrossEntropy(ws.pre.back().data(), n, classes, data.labels, rows, ws.delta.data());

    auto& grad = ws.grad;
    grad.values.resize(std::size_t(layout_.total()));
    grad.segments.assign(1, {0, layout_.total(), 0});
    for (std::size_t l = layers_.size(); l-- > 0;) {
        const auto& layer = layers_[l];
        const T* input = l == 0 ? ws.input.data() : ws.post[l - 1].data();
        ConstMatrixMap<T> a(input, n, layer.in);
        ConstMatrixMap<T> dz(ws.delta.data(), n, layer.out);
        MatrixMap<T> dw(grad.values.data() + layer.weight, layer.out, layer.in);
        Eigen::Map<RowVector<T>> db(grad.values.data() + layer.bias, layer.out);
        dw.noalias() = dz.transpose() * a;
        db = dz.colwise().sum();
        if (l == 0)
            break;
        ws.deltaPrev.resize(std::size_t(n * layer.in));
        ConstMatrixMap<T> w(params + layer.weight, layer.out, layer.in);
        MatrixMap<T> da(ws.deltaPrev.data(), n, layer.in);
        da.noalias() = dz * w;
        activationBackward(spec_.activation, ws.pre[l - 1].data(), ws.post[l - 1].data(),
                           ws.deltaPrev.data(), n * layer.in);
        std::swap(ws.delta, ws.deltaPrev);
    }
    return lossSum / T(n);
}

float Mlp::lossAndGradient(const float* params, const DatasetView& data, const std::int64_t* rows,
                           std::int64_t n, Workspace<float>& ws) const {
    return train(params, data, rows, n, ws);
}

double Mlp::lossAndGradient(const double* params, const DatasetView& data, const std::int64_t* rows,
                            std::int64_t n, Workspace<double>& ws) const {
    return train(params, data, rows, n, ws);
}

EvalResult Mlp::evaluate(const float* params, const DatasetView& data, std::int64_t begin,
                         std::int64_t end, Workspace<float>& ws) const {
    EvalResult result;
    const std::int64_t classes = layers_.back().out;
    forEachChunk(begin, end, [&](std::int64_t first, std::int64_t n, const std::int64_t* rows) {
        gatherRows(data, rows, n, ws.input);
        forward(params, n, ws);
        accumulateEval(ws.pre.back().data(), n, classes, data.labels, first, result);
    });
    return result;
}

} // namespace hwl
