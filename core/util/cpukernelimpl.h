#pragma once
// The arithmetic behind the CPU kernel table (cpukernelapi.h), written once:
// the engine's own copy (cpukernelbuiltin.cpp) and each instruction-set
// module (cpukernelmodule.cpp) compile this file under their own -march, and
// the double-precision path of the kernels (gradient checks) calls it
// directly. Loops keep one order of operations per element whatever the
// vector width (no FMA contraction: -ffp-contract=off), so the bag mean and
// the SGD rule give the same bits on every instruction set; the matrix
// products are Eigen's, whose FMA and blocking differ by a rounding.
#include "util/cpukernelapi.h"
#include "util/directproducts.h"
#include "util/eigenmaps.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>

namespace hwl::cpuimpl {

template <class T>
void productNT(const T* a, const T* b, T* c, std::int64_t m, std::int64_t n, std::int64_t k) {
    MatrixMap<T>(c, m, n).noalias() =
        ConstMatrixMap<T>(a, m, k) * ConstMatrixMap<T>(b, n, k).transpose();
}

template <class T>
void productTN(const T* a, const T* b, T* c, std::int64_t m, std::int64_t n, std::int64_t k) {
    MatrixMap<T>(c, m, n).noalias() =
        ConstMatrixMap<T>(a, k, m).transpose() * ConstMatrixMap<T>(b, k, n);
}

template <class T>
void productNN(const T* a, const T* b, T* c, std::int64_t m, std::int64_t n, std::int64_t k) {
    MatrixMap<T>(c, m, n).noalias() = ConstMatrixMap<T>(a, m, k) * ConstMatrixMap<T>(b, k, n);
}

/// productNT, NT and NN without packing (util/directproducts.h).
template <class T>
void directNT(const T* a, const T* b, T* c, std::int64_t m, std::int64_t n, std::int64_t k) {
    direct::rowDots(a, b, c, m, n, k);
}

template <class T>
void directTN(const T* a, const T* b, T* c, std::int64_t m, std::int64_t n, std::int64_t k) {
    direct::fewRowsTimes(a, 1, m, b, c, m, n, k);
}

template <class T>
void directNN(const T* a, const T* b, T* c, std::int64_t m, std::int64_t n, std::int64_t k) {
    direct::fewRowsTimes(a, k, 1, b, c, m, n, k);
}

template <class T>
void bagMean(const T* table, std::int64_t dim, const std::int64_t* offsets,
             const std::int32_t* indices, const float* values, const std::int64_t* rows,
             std::int64_t n, T* out) {
    for (std::int64_t i = 0; i < n * dim; ++i)
        out[i] = T(0);
    for (std::int64_t r = 0; r < n; ++r) {
        const auto begin = offsets[rows[r]], end = offsets[rows[r] + 1];
        if (end == begin)
            continue;
        T* __restrict h = out + r * dim;
        const T inv = T(1) / T(end - begin);
        for (auto k = begin; k < end; ++k) {
            const T scale = T(values[k]) * inv;
            const T* __restrict e = table + std::int64_t(indices[k]) * dim;
            for (std::int64_t d = 0; d < dim; ++d)
                h[d] += scale * e[d];
        }
    }
}

template <class T>
void bagScatter(const T* dh, std::int64_t dim, const std::int64_t* offsets,
                const std::int32_t* indices, const float* values, const std::int64_t* rows,
                std::int64_t n, const std::int64_t* slot, T* grad) {
    for (std::int64_t r = 0; r < n; ++r) {
        const auto begin = offsets[rows[r]], end = offsets[rows[r] + 1];
        if (end == begin)
            continue;
        const T inv = T(1) / T(end - begin);
        const T* __restrict d = dh + r * dim;
        for (auto k = begin; k < end; ++k) {
            T* __restrict g = grad + slot[indices[k]];
            const T scale = T(values[k]) * inv;
            for (std::int64_t i = 0; i < dim; ++i)
                g[i] += scale * d[i];
        }
    }
}

inline void sgdRange(float* __restrict p, const float* __restrict g, float* __restrict v,
                     std::int64_t n, float lr, float mu, float wd) {
    if (mu == 0.0f && wd == 0.0f) {
        for (std::int64_t i = 0; i < n; ++i)
            p[i] -= lr * g[i];
    } else if (mu == 0.0f) {
        for (std::int64_t i = 0; i < n; ++i)
            p[i] -= lr * (g[i] + wd * p[i]);
    } else {
        for (std::int64_t i = 0; i < n; ++i) {
            v[i] = mu * v[i] + (g[i] + wd * p[i]);
            p[i] -= lr * v[i];
        }
    }
}

inline void sgdSegments(float* params, const float* values, const HwlSegment* segments,
                        std::int64_t count, float* velocity, float lr, float mu, float wd,
                        std::uint32_t rank, std::uint32_t workers) {
    for (std::int64_t s = 0; s < count; ++s) {
        const HwlSegment& seg = segments[s];
        float* p = params + seg.offset;
        const float* g = values + seg.valueIndex;
        float* v = velocity ? velocity + seg.offset : nullptr;
        // Start on a cache-line boundary rank/workers of the way in.
        const std::int64_t split =
            (seg.length * rank / (workers > 0 ? workers : 1u)) & ~std::int64_t(15);
        sgdRange(p + split, g + split, v ? v + split : nullptr, seg.length - split, lr, mu, wd);
        sgdRange(p, g, v, split, lr, mu, wd);
    }
}

/// out[j] = (acc[j] + last[j]) scaled, for j < len (acc null: a sum of
/// `first` and `last` only).
template <bool PowerOfTwo>
inline void finishMean(const double* __restrict acc, const float* __restrict first,
                       const float* __restrict last, std::int64_t len, double count, double inverse,
                       float* __restrict out) {
    for (std::int64_t j = 0; j < len; ++j) {
        const double sum = (acc ? acc[j] : double(first[j])) + double(last[j]);
        out[j] = float(PowerOfTwo ? sum * inverse : sum / count);
    }
}
/// The mean of two floats in float, for j < len; false when some element
/// needs the double formula (then out is to be recomputed).
inline bool meanOfTwoInFloat(const float* __restrict a, const float* __restrict b, std::int64_t len,
                             float* __restrict out) {
    int unsure = 0;
    for (std::int64_t j = 0; j < len; ++j) {
        const float sum = a[j] + b[j];
        out[j] = sum * 0.5f;
        const float size = std::fabs(sum);
        // Bitwise, not &&: a branch would keep the loop from vectorising.
        unsure |= int(size < 2 * FLT_MIN) | int(!(size <= FLT_MAX)); // NaN: the second
    }
    return unsure == 0;
}

/// collective/rankmean.h: inputs[r] + begin .. inputs[r] + end for r < n,
/// into out + begin, summed in rank order in double (a float path for two
/// ranks with the same bits).
inline void meanInRankOrder(const float* const* inputs, std::uint32_t n, std::int64_t begin,
                            std::int64_t end, float* out) {
    if (n == 1) { // float(double(x) * 1.0) is x
        std::copy(inputs[0] + begin, inputs[0] + end, out + begin);
        return;
    }
    // Block by block, so the double sums of three or more ranks stay in a
    // small stack array and every inner loop vectorises.
    constexpr std::int64_t kBlock = 1024;
    const double count = double(n);
    const bool powerOfTwo = (n & (n - 1)) == 0;
    const double inverse = 1.0 / count;
    double acc[kBlock];
    for (std::int64_t at = begin; at < end; at += kBlock) {
        const std::int64_t len = std::min(kBlock, end - at);
        const double* sums = nullptr;
        if (n > 2) {
            const float* a = inputs[0] + at;
            const float* b = inputs[1] + at;
            for (std::int64_t j = 0; j < len; ++j)
                acc[j] = double(a[j]) + double(b[j]);
            for (std::uint32_t r = 2; r + 1 < n; ++r) {
                const float* in = inputs[r] + at;
                for (std::int64_t j = 0; j < len; ++j)
                    acc[j] += double(in[j]);
            }
            sums = acc;
        }
        const float* first = inputs[0] + at;
        const float* last = inputs[n - 1] + at;
        if (n == 2 && meanOfTwoInFloat(first, last, len, out + at))
            continue;
        if (powerOfTwo)
            finishMean<true>(sums, first, last, len, count, inverse, out + at);
        else
            finishMean<false>(sums, first, last, len, count, inverse, out + at);
    }
}

/// The table of this translation unit's instruction set.
inline HwlCpuKernels table(const char* level, const char* instructions) {
    HwlCpuKernels t{};
    t.abi = HWL_CPU_KERNELS_ABI;
    t.level = level;
    t.instructions = instructions;
    t.productNT = &productNT<float>;
    t.productTN = &productTN<float>;
    t.productNN = &productNN<float>;
    t.directNT = &directNT<float>;
    t.directTN = &directTN<float>;
    t.directNN = &directNN<float>;
    t.bagMean = &bagMean<float>;
    t.bagScatter = &bagScatter<float>;
    t.sgdRange = &sgdRange;
    t.sgdSegments = &sgdSegments;
    t.meanInRankOrder = &meanInRankOrder;
    return t;
}

} // namespace hwl::cpuimpl
