#include "backend/cpu/netkernel.h"

#include "backend/cpu/activations.h"
#include "backend/cpu/batchgather.h"
#include "backend/cpu/cpuproducts.h"
#include "backend/cpu/softmaxloss.h"
#include "util/dropoutdraws.h"
#include "util/eigenmaps.h"

namespace hwl {

namespace {

using Kind = NetKernel::Step::Kind;
using Op = Layer::Op;

template <class T>
T* sized(AlignedVector<T>& v, std::int64_t size) {
    v.resize(std::size_t(size));
    return v.data();
}

template <class T>
T* zeroed(AlignedVector<T>& v, std::int64_t size) {
    v.assign(std::size_t(size), T(0));
    return v.data();
}

Activation activationOf(Op op) {
    switch (op) {
    case Op::Tanh:
        return Activation::Tanh;
    case Op::Sigmoid:
        return Activation::Sigmoid;
    case Op::Gelu:
        return Activation::Gelu;
    default:
        return Activation::Relu;
    }
}

/// Keeps a group's dropout factors (rows x width) where ws.dropoutLog asks.
template <class T>
void logDraws(Workspace<T>& ws, std::size_t step, std::int64_t rows, std::int64_t width,
              const T* factors) {
    if (!ws.dropoutLog)
        return;
    auto& log = *ws.dropoutLog;
    if (log.size() <= step)
        log.resize(step + 1);
    auto& kept = log[step];
    const auto end = std::size_t((ws.groupFirst + rows) * width);
    if (kept.size() < end)
        kept.resize(end);
    std::copy_n(factors, rows * width, kept.begin() + std::ptrdiff_t(ws.groupFirst * width));
}

netops::Window windowOf(const LayerInfo& info) {
    return {info.layer.kernel, info.layer.stride, info.layer.padding, info.in.height,
            info.in.width,     info.out.height,   info.out.width};
}

/// Moves n samples of `channels` planes of `area` between the two orders.
template <class T>
void transposePlanes(const T* in, std::int64_t n, std::int64_t channels, std::int64_t area,
                     bool toSampleMajor, T* out) {
    for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t c = 0; c < channels; ++c) {
            const std::int64_t sampleMajor = (i * channels + c) * area,
                               channelMajor = (c * n + i) * area;
            if (toSampleMajor)
                std::copy_n(in + channelMajor, area, out + sampleMajor);
            else
                std::copy_n(in + sampleMajor, area, out + channelMajor);
        }
}

/// The rows a step of a list with convolutions takes at once: as many as
/// keep one group's activations, patches and their gradients within about
/// 3 MiB (a batch of 64 images of cnn:mnist takes 20 MB). The convolutions'
/// products read their operands straight from memory (cpu::directNN and
/// the others), so longer rows of patches pay: on the 2-core EPYC VM (1 MiB
/// of L2 a core, 32 MiB of L3) bench/stepkernel's cnn:mnist step took
/// 3.69 ms in groups of 3 (a 1.25 MiB budget), 3.38 in groups of 6, 3.30 in
/// groups of 8 (this budget: 9), 3.28 in groups of 12 and 3.39 in groups of
/// 16 (the best of 4 runs each). 0 for a list without convolutions: its
/// steps are products over the whole batch, and it keeps the bits of the
/// mlp: it spells.
std::int64_t groupSize(const std::vector<NetKernel::Step>& steps) {
    bool convolution = false;
    double floats = 0; // a sample's, forward and backward
    for (const NetKernel::Step& step : steps) {
        convolution = convolution || step.kind == Kind::Conv;
        floats += 2 * double(step.out.size());
        if (step.kind == Kind::Conv)
            floats += 2 * double(step.window.outHeight * step.window.outWidth * step.in.channels *
                                 step.window.kernel * step.window.kernel);
    }
    if (!convolution)
        return 0;
    constexpr double kBudget = 3.0 * 1024 * 1024 / sizeof(float);
    return std::max<std::int64_t>(1, std::int64_t(kBudget / floats));
}

} // namespace

NetKernel::NetKernel(const Net& model)
    : total_(model.layout().total()), classes_(model.classes()), seed_(model.spec().dropoutSeed) {
    const auto& layers = model.layers();
    bool channelMajor = false;
    for (std::size_t i = 0; i < layers.size(); ++i) {
        const LayerInfo& info = layers[i].info;
        const Op op = info.layer.op;
        Step step;
        step.in = info.in;
        step.out = info.out;
        step.inChannelMajor = channelMajor;
        step.weight = layers[i].weight;
        step.bias = layers[i].bias;
        step.window = windowOf(info);
        const double p = info.layer.probability(model.spec().dropout);
        const bool next = i + 1 < layers.size();
        if (info.layer.isDropout() && p == 0)
            continue; // the identity
        if (op == Op::Dropout2d && next && layers[i + 1].info.layer.op == Op::MaxPool)
            continue; // the pool after it applies it (below)
        if (op == Op::Flatten && !channelMajor)
            continue; // already [sample][feature]
        switch (op) {
        case Op::Conv:
            step.kind = Kind::Conv;
            break;
        case Op::MaxPool:
        case Op::AvgPool:
            step.kind = op == Op::MaxPool ? Kind::MaxPool : Kind::AvgPool;
            if (op == Op::MaxPool && i > 0 && layers[i - 1].info.layer.op == Op::Dropout2d) {
                step.p = layers[i - 1].info.layer.probability(model.spec().dropout);
                step.dropBefore = step.p > 0;
            }
            if (op == Op::MaxPool && next && layers[i + 1].info.layer.op == Op::Relu) {
                step.relu = true;
                step.out = layers[++i].info.out;
            }
            break;
        case Op::Dropout:
        case Op::Dropout2d:
            step.kind = op == Op::Dropout ? Kind::Dropout : Kind::Dropout2d;
            step.p = p;
            break;
        case Op::Flatten:
            step.kind = Kind::Flatten;
            break;
        case Op::Fc:
            step.kind = Kind::Fc;
            break;
        default:
            step.kind = Kind::Act;
            step.act = activationOf(op);
        }
        if (step.kind == Kind::Conv)
            channelMajor = true;
        else if (step.kind != Kind::Act && step.kind != Kind::Dropout &&
                 step.kind != Kind::Dropout2d)
            channelMajor = false;
        step.outChannelMajor = channelMajor;
        steps_.push_back(step);
    }
    while (firstWithParameters_ < steps_.size() &&
           steps_[firstWithParameters_].kind != Kind::Conv &&
           steps_[firstWithParameters_].kind != Kind::Fc)
        ++firstWithParameters_;
    group_ = groupSize(steps_);
}

template <class T>
void NetKernel::forwardStep(std::size_t s, const T* params, std::int64_t n, bool training, Rng& rng,
                            Workspace<T>& ws) const {
    const Step& step = steps_[s];
    const T* x = s == 0 ? ws.input.data() : ws.pre[2 * (s - 1)].data();
    auto& out = ws.pre[2 * s];
    auto& aux = ws.pre[2 * s + 1];
    const netops::Planes planes = inPlanes(step, n);
    const netops::Window& w = step.window;
    const std::int64_t inSize = n * step.in.size(), outSize = n * step.out.size();
    switch (step.kind) {
    case Kind::Conv: {
        const std::int64_t cols = n * w.outHeight * w.outWidth,
                           width = step.in.channels * w.kernel * w.kernel;
        T* z = sized(out, outSize);
        netops::im2colRows(x, planes, w, sized(aux, width * cols));
        cpu::directNN(params + step.weight, aux.data(), z, step.out.channels, cols, width);
        MatrixMap<T>(z, step.out.channels, cols).colwise() +=
            Eigen::Map<const Eigen::Matrix<T, Eigen::Dynamic, 1>>(params + step.bias,
                                                                  step.out.channels);
        break;
    }
    case Kind::MaxPool: {
        const T* scale = nullptr;
        if (training && step.dropBefore) {
            netops::dropoutScales(rng, step.p, n * step.in.channels,
                                  sized(aux, n * step.in.channels));
            logDraws(ws, s, n, step.in.channels, aux.data());
            scale = aux.data();
        }
        if (netops::pairsCoverInput(w))
            netops::maxPool2(x, planes, w, scale, step.relu, sized(out, outSize), ws.picks[s]);
        else
            netops::maxPool(x, planes, w, scale, step.relu, sized(out, outSize), ws.picks[s]);
        break;
    }
    case Kind::AvgPool:
        netops::avgPool(x, planes, w, sized(out, outSize));
        break;
    case Kind::Act:
        activate(step.act, x, sized(out, outSize), outSize);
        break;
    case Kind::Dropout:
    case Kind::Dropout2d: {
        const bool perPlane = step.kind == Kind::Dropout2d;
        if (!training) {
            std::copy_n(x, inSize, sized(out, outSize));
            break;
        }
        const std::int64_t draws = perPlane ? n * step.in.channels : inSize;
        netops::dropoutScales(rng, step.p, draws, sized(aux, draws));
        logDraws(ws, s, n, draws / n, aux.data());
        netops::applyScale(x, aux.data(), planes, perPlane, sized(out, outSize));
        break;
    }
    case Kind::Flatten:
        transposePlanes(x, n, planes.channels, planes.area, true, sized(out, outSize));
        break;
    case Kind::Fc: {
        T* z = sized(out, outSize);
        cpu::productNT(x, params + step.weight, z, n, step.out.size(), step.in.size());
        MatrixMap<T>(z, n, step.out.size()).rowwise() +=
            ConstRowMap<T>(params + step.bias, step.out.size());
        break;
    }
    }
}

template <class T>
const T* NetKernel::forward(const T* params, std::int64_t n, bool training, Rng& rng,
                            Workspace<T>& ws) const {
    ws.pre.resize(2 * steps_.size());
    ws.post.resize(steps_.size());
    ws.picks.resize(steps_.size());
    for (std::size_t s = 0; s < steps_.size(); ++s)
        forwardStep(s, params, n, training, rng, ws);
    return ws.pre[2 * (steps_.size() - 1)].data();
}

template <class T>
T* NetKernel::backwardStep(std::size_t s, const T* params, std::int64_t n, T* gradOut,
                           Workspace<T>& ws, T* grad) const {
    const Step& step = steps_[s];
    const T* x = s == 0 ? ws.input.data() : ws.pre[2 * (s - 1)].data();
    const T* y = ws.pre[2 * s].data();
    const T* aux = ws.pre[2 * s + 1].data();
    const bool inputGradient = s > firstWithParameters_;
    const netops::Planes planes = inPlanes(step, n);
    const netops::Window& w = step.window;
    const std::int64_t inSize = n * step.in.size();
    T* gradIn = gradOut; // the element-wise steps work in place
    switch (step.kind) {
    case Kind::Conv: {
        const std::int64_t cout = step.out.channels, cols = n * w.outHeight * w.outWidth,
                           width = step.in.channels * w.kernel * w.kernel;
        cpu::directNT(gradOut, aux, grad + step.weight, cout, width, cols);
        Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, 1>>(grad + step.bias, cout) =
            ConstMatrixMap<T>(gradOut, cout, cols).rowwise().sum();
        if (!inputGradient)
            return nullptr;
        T* patches = sized(ws.deltaPrev, width * cols);
        cpu::directTN(params + step.weight, gradOut, patches, width, cols, cout);
        gradIn = zeroed(ws.post[s], inSize);
        netops::col2imRowsAdd(patches, planes, w, gradIn);
        break;
    }
    case Kind::MaxPool: {
        const T* scale = step.dropBefore ? aux : nullptr;
        gradIn = zeroed(ws.post[s], inSize);
        if (!netops::pairsCoverInput(w))
            netops::maxPoolBackward(gradOut, y, ws.picks[s], planes, w, scale, step.relu, gradIn);
        else if (step.relu)
            netops::maxPool2Backward<T, true>(gradOut, y, ws.picks[s], planes, w, scale, gradIn);
        else
            netops::maxPool2Backward<T, false>(gradOut, y, ws.picks[s], planes, w, scale, gradIn);
        break;
    }
    case Kind::AvgPool:
        gradIn = zeroed(ws.post[s], inSize);
        netops::avgPoolBackward(gradOut, planes, w, gradIn);
        break;
    case Kind::Act:
        activationBackward(step.act, x, y, gradOut, inSize);
        break;
    case Kind::Dropout:
    case Kind::Dropout2d:
        netops::applyScale(gradOut, aux, planes, step.kind == Kind::Dropout2d, gradOut);
        break;
    case Kind::Flatten:
        gradIn = sized(ws.post[s], inSize);
        transposePlanes(gradOut, n, planes.channels, planes.area, false, gradIn);
        break;
    case Kind::Fc: {
        const std::int64_t out = step.out.size(), in = step.in.size();
        cpu::productTN(gradOut, x, grad + step.weight, out, in, n);
        Eigen::Map<RowVector<T>>(grad + step.bias, out) =
            ConstMatrixMap<T>(gradOut, n, out).colwise().sum();
        if (!inputGradient)
            return nullptr;
        gradIn = sized(ws.post[s], inSize);
        cpu::productNN(gradOut, params + step.weight, gradIn, n, in, out);
        break;
    }
    }
    return gradIn;
}

template <class T>
T NetKernel::train(const T* params, const DatasetView& data, const std::int64_t* rows,
                   std::int64_t n, Workspace<T>& ws) const {
    T* values = ws.gradientBuffer;
    if (!values) {
        ws.grad.values.resize(std::size_t(total_));
        values = ws.grad.values.data();
    }
    ws.grad.segments.assign(1, {0, total_, 0});
    // One stream of dropout draws for the whole batch, group after group:
    // the order util/dropoutdraws.h's drawStep() replays on the GPU.
    Rng rng(dropout::streamSeed(seed_, ws.noiseKey));
    const std::int64_t group = group_ > 0 ? std::min(group_, n) : n;
    T lossSum = 0;
    for (std::int64_t first = 0; first < n; first += group) {
        const std::int64_t m = std::min(group, n - first);
        ws.groupFirst = first;
        gatherRows(data, rows + first, m, ws.input);
        const T* logits = forward(params, m, true, rng, ws);
        ws.delta.resize(std::size_t(m * classes_));
        lossSum +=
            softmaxCrossEntropy(logits, m, classes_, data.labels, rows + first, ws.delta.data(), n);
        // The first group's gradient goes straight to `values`, the others'
        // are added to it: the batch's mean gradient is their sum.
        T* target = first == 0 ? values : sized(ws.partial, total_);
        T* gradOut = ws.delta.data();
        for (std::size_t s = steps_.size(); s-- > firstWithParameters_;)
            gradOut = backwardStep(s, params, m, gradOut, ws, target);
        if (first > 0)
            Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, 1>>(values, total_) +=
                Eigen::Map<const Eigen::Matrix<T, Eigen::Dynamic, 1>>(target, total_);
    }
    return lossSum / T(n);
}

const float* NetKernel::logits(const float* params, const DatasetView& data,
                               const std::int64_t* rows, std::int64_t n,
                               Workspace<float>& ws) const {
    gatherRows(data, rows, n, ws.input);
    Rng unused(0); // evaluation draws nothing
    return forward(params, n, false, unused, ws);
}

// ModelKernelOf calls these from the header: one instance per precision.
template float NetKernel::train<float>(const float*, const DatasetView&, const std::int64_t*,
                                       std::int64_t, Workspace<float>&) const;
template double NetKernel::train<double>(const double*, const DatasetView&, const std::int64_t*,
                                         std::int64_t, Workspace<double>&) const;

} // namespace hwl
