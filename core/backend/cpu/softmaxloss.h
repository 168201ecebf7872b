#pragma once
// Softmax cross-entropy over a batch of logits, shared by every model.
#include "backend/backend.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace hwl {

/// Returns the SUM of per-row losses for logits (n x classes, row-major) and
/// writes d(mean loss)/d(logits) = (softmax - onehot) / batch into delta,
/// batch the rows of the whole batch these n are part of (0: n).
/// labels[rows[r]] is row r's class.
template <class T>
T softmaxCrossEntropy(const T* logits, std::int64_t n, std::int64_t classes,
                      const std::int32_t* labels, const std::int64_t* rows, T* delta,
                      std::int64_t batch = 0) {
    const T mean = T(batch ? batch : n);
    T lossSum = 0;
    for (std::int64_t r = 0; r < n; ++r) {
        const T* z = logits + r * classes;
        T* d = delta + r * classes;
        const T zmax = *std::max_element(z, z + classes);
        T sum = 0;
        for (std::int64_t c = 0; c < classes; ++c) {
            d[c] = std::exp(z[c] - zmax);
            sum += d[c];
        }
        const auto y = labels[rows[r]];
        lossSum += std::log(sum) - (z[y] - zmax);
        const T scale = T(1) / (sum * mean);
        for (std::int64_t c = 0; c < classes; ++c)
            d[c] *= scale;
        d[y] -= T(1) / mean;
    }
    return lossSum;
}

/// Adds loss (in double) and argmax correctness of n rows of logits, whose
/// labels are labels[first .. first + n), to `result`.
inline void accumulateEval(const float* logits, std::int64_t n, std::int64_t classes,
                           const std::int32_t* labels, std::int64_t first, EvalResult& result) {
    for (std::int64_t r = 0; r < n; ++r) {
        const float* z = logits + r * classes;
        const auto best = std::max_element(z, z + classes) - z;
        const double zmax = z[best];
        double sum = 0;
        for (std::int64_t c = 0; c < classes; ++c)
            sum += std::exp(double(z[c]) - zmax);
        const auto y = labels[first + r];
        result.lossSum += std::log(sum) - (double(z[y]) - zmax);
        result.correct += best == y ? 1 : 0;
    }
    result.count += n;
}

/// Calls fn(first, n, rows) for consecutive chunks of [begin, end), rows
/// holding first..first+n-1: evaluation walks a dataset this way.
template <class Fn>
void forEachChunk(std::int64_t begin, std::int64_t end, Fn&& fn) {
    constexpr std::int64_t kChunk = 256;
    std::int64_t rows[kChunk];
    for (std::int64_t start = begin; start < end; start += kChunk) {
        const std::int64_t n = std::min(kChunk, end - start);
        for (std::int64_t i = 0; i < n; ++i)
            rows[i] = start + i;
        fn(start, n, rows);
    }
}

} // namespace hwl
