#pragma once
// The arithmetic of the CUDA backend's kernels, one element or one row at a
// time, as __host__ __device__ functions: the kernels in core/cuda call them
// on the device, and the CPU tests (tests/tst_devicemath) call the same
// functions on the host and compare them with the CPU backend's double
// reference, so every machine checks the GPU's arithmetic, GPU or not.
// Plain C++ without nvcc (the macros expand to nothing).
#include "util/hostdevice.h"

#include <cmath>
#include <cstdint>

namespace hwl::devicemath {

/// The hidden activations, numbered as hwl::Activation (relu, tanh, sigmoid).
enum ActivationCode : int { kRelu = 0, kTanh = 1, kSigmoid = 2 };

template <class T>
HWL_HD T activate(int code, T x) {
    using std::exp, std::tanh;
    if (code == kRelu)
        return x > T(0) ? x : T(0);
    if (code == kTanh)
        return tanh(x);
    return T(1) / (T(1) + exp(-x));
}

/// d act / d pre, from the activation's input `pre` and output `post`.
template <class T>
HWL_HD T activationSlope(int code, T pre, T post) {
    if (code == kRelu)
        return pre > T(0) ? T(1) : T(0);
    if (code == kTanh)
        return T(1) - post * post;
    return post * (T(1) - post);
}

/// delta through the activation, as the CPU kernel does it: ReLU passes delta
/// where pre > 0 and gives exactly 0 elsewhere (also for an infinite or NaN
/// delta, where delta * 0 would be NaN); the others multiply by the slope.
template <class T>
HWL_HD T backpropagate(int code, T delta, T pre, T post) {
    if (code == kRelu)
        return pre > T(0) ? delta : T(0);
    return delta * activationSlope(code, pre, post);
}

/// Softmax cross-entropy of one row of `classes` logits with label `label`:
/// returns the row's loss and writes d(mean loss)/d(logits) =
/// (softmax - onehot) / batch into delta (which may alias nothing).
template <class T>
HWL_HD T softmaxRow(const T* z, int classes, int label, int batch, T* delta) {
    using std::exp, std::log;
    T zmax = z[0];
    for (int c = 1; c < classes; ++c)
        zmax = z[c] > zmax ? z[c] : zmax;
    T sum = 0;
    for (int c = 0; c < classes; ++c) {
        delta[c] = exp(z[c] - zmax);
        sum += delta[c];
    }
    const T scale = T(1) / (sum * T(batch));
    for (int c = 0; c < classes; ++c)
        delta[c] *= scale;
    delta[label] -= T(1) / T(batch);
    return log(sum) - (z[label] - zmax);
}

/// Whether row z's largest logit is its label's (the first of equal ones).
template <class T>
HWL_HD bool correctRow(const T* z, int classes, int label) {
    int best = 0;
    for (int c = 1; c < classes; ++c)
        best = z[c] > z[best] ? c : best;
    return best == label;
}

/// One row's evaluation, as the CPU's accumulateEval: the loss in double
/// into `loss`; whether its first largest logit is the label.
HWL_HD bool evaluateRow(const float* z, int classes, int label, double& loss) {
    using std::exp, std::log;
    int best = 0;
    for (int c = 1; c < classes; ++c)
        best = z[c] > z[best] ? c : best;
    const double zmax = z[best];
    double sum = 0;
    for (int c = 0; c < classes; ++c)
        sum += exp(double(z[c]) - zmax);
    loss = log(sum) - (double(z[label]) - zmax);
    return best == label;
}

/// The rows' sum of column o of replica r's n x width values, in row order
/// (a bias's gradient from its layer's output gradient).
template <class T>
HWL_HD T columnSum(const T* values, int n, std::int64_t width, std::int64_t r, std::int64_t o) {
    T sum = 0;
    for (int i = 0; i < n; ++i)
        sum += values[(r * n + i) * width + o];
    return sum;
}

/// A row's sum by `threads` threads, thread t's part: the values t,
/// t + threads, ... in order (the first half of channelSumKernel).
template <class T>
HWL_HD T stridedPart(const T* row, std::int64_t count, int t, int threads) {
    T sum = 0;
    for (std::int64_t j = t; j < count; j += threads)
        sum += row[j];
    return sum;
}

/// One level of the tree that adds the threads' parts: thread t < half adds
/// part[t + half] to part[t]. `threads` parts fold to part[0] through the
/// levels half = threads / 2, threads / 4, ... 1 (each level after the
/// previous one: __syncthreads on the device, in turn on the host).
template <class T>
HWL_HD void treeLevel(T* part, int half, int t) {
    if (t < half)
        part[t] += part[t + half];
}

/// The gather of a step's rows: element k of the replicas' batch (n rows of
/// `dim` values a replica, [r][i][d]) is data[row][d] for row = rows[r][first
/// + i] (each replica's epoch rows `rowsPerReplica` long); the row's index.
HWL_HD std::int32_t gatheredRow(std::int64_t k, int n, std::int64_t dim, const std::int32_t* rows,
                                std::int64_t rowsPerReplica, std::int64_t first) {
    const std::int64_t r = k / (n * dim), i = (k / dim) % n;
    return rows[r * rowsPerReplica + first + i];
}

/// torch.optim.SGD on one parameter (dampening 0, no Nesterov), as
/// optim/sgd.h: g += wd * p; v = mu * v + g; p -= lr * v (v untouched when
/// mu is 0).
template <class T>
HWL_HD void sgdElement(T& p, T g, T& v, T lr, T mu, T wd) {
    g += wd * p;
    if (mu != T(0)) {
        v = mu * v + g;
        g = v;
    }
    p -= lr * g;
}

/// Plain SGD's change of one parameter read as v (optim/sgd.h without
/// momentum: g += wd * v, then p -= lr * g): gpu-hogwild's update, racy (a
/// store of v + change) or atomic (atomicAdd of the change).
template <class T>
HWL_HD T sgdChange(T v, T g, T lr, T wd) {
    return -lr * (g + wd * v);
}

/// The weight of one token of a bag of `tokens` tokens with value `value`
/// (the embedding bag takes the mean of its rows, weighted by the values).
template <class T>
HWL_HD T bagWeight(T value, std::int64_t tokens) {
    return value / T(tokens);
}

/// The mean of `count` values from their sum in double, by the rule of
/// collective/rankmean.h (the CPU's collectives): the sum divided by the
/// count, or multiplied by 1/count when the count is a power of two (then
/// both are exact), rounded to float once.
HWL_HD float meanOfSum(double sum, std::uint32_t count) {
    const bool powerOfTwo = (count & (count - 1)) == 0;
    return powerOfTwo ? float(sum * (1.0 / double(count))) : float(sum / double(count));
}

/// The mean of values[0], values[stride], ... values[(count - 1) * stride]:
/// added in double in that order (the replicas' order, as hwl::meanInRankOrder
/// adds the ranks), then meanOfSum.
HWL_HD float meanInOrder(const float* values, std::int64_t stride, std::uint32_t count) {
    double sum = double(values[0]);
    for (std::uint32_t r = 1; r < count; ++r)
        sum += double(values[std::int64_t(r) * stride]);
    return meanOfSum(sum, count);
}

/// One racy-update outcome: a store that replaced `seen` while the update
/// had been computed from `loaded` overwrote another block's write (lost).
HWL_HD bool overwroteAnother(float loaded, float seen) {
    return !(loaded == seen) && !(loaded != loaded && seen != seen);
}

} // namespace hwl::devicemath
