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
#include "util/eigenmaps.h"

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

/// The table of this translation unit's instruction set.
inline HwlCpuKernels table(const char* level, const char* instructions) {
    return {HWL_CPU_KERNELS_ABI, level,
            instructions,        &productNT<float>,
            &productTN<float>,   &productNN<float>,
            &bagMean<float>,     &bagScatter<float>,
            &sgdRange,           &sgdSegments};
}

} // namespace hwl::cpuimpl
