#pragma once
// Copies a batch's rows into a dense row-major buffer (batch x dim), from a
// dense or a sparse (CSR) dataset.
#include "data/dataset.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

namespace hwl {

template <class Vector>
void gatherRows(const DatasetView& data, const std::int64_t* rows, std::int64_t n, Vector& out) {
    using T = typename Vector::value_type;
    const std::int64_t dim = data.dim;
    out.resize(std::size_t(n * dim));
    if (!data.isSparse()) {
        for (std::int64_t r = 0; r < n; ++r) {
            const float* src = data.dense + rows[r] * dim;
            if constexpr (std::is_same_v<T, float>)
                std::memcpy(out.data() + r * dim, src, std::size_t(dim) * sizeof(float));
            else
                std::copy(src, src + dim, out.data() + r * dim);
        }
        return;
    }
    std::fill(out.begin(), out.end(), T(0));
    for (std::int64_t r = 0; r < n; ++r) {
        T* dst = out.data() + r * dim;
        for (auto k = data.offsets[rows[r]]; k < data.offsets[rows[r] + 1]; ++k)
            dst[data.indices[k]] += T(data.values[k]);
    }
}

} // namespace hwl
