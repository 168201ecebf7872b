#include "model/embeddingbag.h"

#include "backend/cpu/eigenmaps.h"
#include "backend/cpu/softmaxloss.h"
#include "util/random.h"

#include <cmath>

namespace hwl {

EmbeddingBag::EmbeddingBag(const ModelSpec& spec)
    : vocab_(spec.vocab), dim_(spec.dim), classes_(spec.classes) {
    spec_ = spec;
    table_ = layout_.add("embedding.weight", {vocab_, dim_});
    weight_ = layout_.add("fc.weight", {classes_, dim_});
    bias_ = layout_.add("fc.bias", {classes_});
}

void EmbeddingBag::initialize(float* params, std::uint64_t seed) const {
    Rng rng(seed);
    for (std::int64_t i = 0; i < vocab_ * dim_; ++i)
        params[table_ + i] = float(rng.normal());
    const float bound = 1.0f / std::sqrt(float(dim_));
    for (std::int64_t i = 0; i < classes_ * dim_; ++i)
        params[weight_ + i] = rng.uniform(-bound, bound);
    for (std::int64_t i = 0; i < classes_; ++i)
        params[bias_ + i] = rng.uniform(-bound, bound);
}

std::string EmbeddingBag::incompatibility(const DatasetView& data) const {
    if (!data.isSparse())
        return "embedding-bag needs a sparse dataset (sparse-bow or libsvm), but this one is "
               "dense: use an mlp model instead";
    if (data.dim > vocab_)
        return "the dataset's vocabulary has " + std::to_string(data.dim) +
               " tokens but the model's has " + std::to_string(vocab_) +
               ": make V in --model embedding-bag:V-D-C at least " + std::to_string(data.dim);
    if (data.numClasses > classes_)
        return "the dataset has " + std::to_string(data.numClasses) +
               " classes but the model only " + std::to_string(classes_);
    return {};
}

double EmbeddingBag::flopsPerSample() const {
    // Dense part only (the bag sum depends on the row's length).
    return 6.0 * double(dim_) * double(classes_);
}

template <class T>
void EmbeddingBag::forward(const T* params, const DatasetView& data, const std::int64_t* rows,
                           std::int64_t n, Workspace<T>& ws) const {
    ws.input.assign(std::size_t(n * dim_), T(0));
    for (std::int64_t r = 0; r < n; ++r) {
        const auto begin = data.offsets[rows[r]], end = data.offsets[rows[r] + 1];
        if (end == begin)
            continue;
        T* h = ws.input.data() + r * dim_;
        const T inv = T(1) / T(end - begin);
        for (auto k = begin; k < end; ++k) {
            const T scale = T(data.values[k]) * inv;
            const T* e = params + table_ + std::int64_t(data.indices[k]) * dim_;
            for (std::int64_t d = 0; d < dim_; ++d)
                h[d] += scale * e[d];
        }
    }
    ws.pre.resize(1);
    ws.pre[0].resize(std::size_t(n * classes_));
    ConstMatrixMap<T> h(ws.input.data(), n, dim_);
    ConstMatrixMap<T> w(params + weight_, classes_, dim_);
    Eigen::Map<const RowVector<T>> b(params + bias_, classes_);
    MatrixMap<T> z(ws.pre[0].data(), n, classes_);
    z.noalias() = h * w.transpose();
    z.rowwise() += b;
}

template <class T>
T EmbeddingBag::train(const T* params, const DatasetView& data, const std::int64_t* rows,
                      std::int64_t n, Workspace<T>& ws) const {
    forward(params, data, rows, n, ws);
    ws.delta.resize(std::size_t(n * classes_));
    const T lossSum =
        softmaxCrossEntropy(ws.pre[0].data(), n, classes_, data.labels, rows, ws.delta.data());

    // Gradient layout in ws.grad.values: [fc.weight, fc.bias] first (one
    // segment, matching their contiguous place in the flat buffer), then one
    // D-block per distinct embedding row the batch used.
    auto& grad = ws.grad;
    const std::int64_t fcSize = classes_ * dim_ + classes_;
    grad.segments.assign(1, {weight_, fcSize, 0});
    grad.values.resize(std::size_t(fcSize));
    ConstMatrixMap<T> h(ws.input.data(), n, dim_);
    ConstMatrixMap<T> dz(ws.delta.data(), n, classes_);
    MatrixMap<T>(grad.values.data(), classes_, dim_).noalias() = dz.transpose() * h;
    Eigen::Map<RowVector<T>>(grad.values.data() + classes_ * dim_, classes_) = dz.colwise().sum();

    // dh = dz W, then scattered to the rows the bag used.
    ws.deltaPrev.resize(std::size_t(n * dim_));
    ConstMatrixMap<T> w(params + weight_, classes_, dim_);
    MatrixMap<T>(ws.deltaPrev.data(), n, dim_).noalias() = dz * w;
    if (ws.rowMark.size() != std::size_t(vocab_)) {
        ws.rowMark.assign(std::size_t(vocab_), 0);
        ws.rowSlot.assign(std::size_t(vocab_), 0);
        ws.stamp = 0;
    }
    if (++ws.stamp == INT32_MAX) {
        std::fill(ws.rowMark.begin(), ws.rowMark.end(), 0);
        ws.stamp = 1;
    }
    const auto stamp = std::int32_t(ws.stamp);
    for (std::int64_t r = 0; r < n; ++r) {
        const auto begin = data.offsets[rows[r]], end = data.offsets[rows[r] + 1];
        if (end == begin)
            continue;
        const T inv = T(1) / T(end - begin);
        const T* dh = ws.deltaPrev.data() + r * dim_;
        for (auto k = begin; k < end; ++k) {
            const auto token = data.indices[k];
            if (ws.rowMark[token] != stamp) {
                ws.rowMark[token] = stamp;
                ws.rowSlot[token] = std::int64_t(grad.values.size());
                grad.segments.push_back(
                    {table_ + std::int64_t(token) * dim_, dim_, std::int64_t(grad.values.size())});
                grad.values.resize(grad.values.size() + std::size_t(dim_), T(0));
            }
            T* g = grad.values.data() + ws.rowSlot[token];
            const T scale = T(data.values[k]) * inv;
            for (std::int64_t d = 0; d < dim_; ++d)
                g[d] += scale * dh[d];
        }
    }
    return lossSum / T(n);
}

float EmbeddingBag::lossAndGradient(const float* params, const DatasetView& data,
                                    const std::int64_t* rows, std::int64_t n,
                                    Workspace<float>& ws) const {
    return train(params, data, rows, n, ws);
}

double EmbeddingBag::lossAndGradient(const double* params, const DatasetView& data,
                                     const std::int64_t* rows, std::int64_t n,
                                     Workspace<double>& ws) const {
    return train(params, data, rows, n, ws);
}

EvalResult EmbeddingBag::evaluate(const float* params, const DatasetView& data, std::int64_t begin,
                                  std::int64_t end, Workspace<float>& ws) const {
    EvalResult result;
    forEachChunk(begin, end, [&](std::int64_t first, std::int64_t n, const std::int64_t* rows) {
        forward(params, data, rows, n, ws);
        accumulateEval(ws.pre[0].data(), n, classes_, data.labels, first, result);
    });
    return result;
}

} // namespace hwl
