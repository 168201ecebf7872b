#pragma once
// The CPU kernels' matrix products and bag mean for either precision: float
// goes through the table of the instruction set this process runs
// (util/cpukernels.h), double (the gradient checks) through the same code
// compiled into the engine (util/cpukernelimpl.h).
#include "util/cpukernelimpl.h"
#include "util/cpukernels.h"

#include <cstdint>
#include <type_traits>

namespace hwl::cpu {

/// c (m x n) = a (m x k) * b (n x k) transposed.
template <class T>
void productNT(const T* a, const T* b, T* c, std::int64_t m, std::int64_t n, std::int64_t k) {
    if constexpr (std::is_same_v<T, float>)
        cpuKernels().productNT(a, b, c, m, n, k);
    else
        cpuimpl::productNT(a, b, c, m, n, k);
}

/// c (m x n) = a (k x m) transposed * b (k x n).
template <class T>
void productTN(const T* a, const T* b, T* c, std::int64_t m, std::int64_t n, std::int64_t k) {
    if constexpr (std::is_same_v<T, float>)
        cpuKernels().productTN(a, b, c, m, n, k);
    else
        cpuimpl::productTN(a, b, c, m, n, k);
}

/// c (m x n) = a (m x k) * b (k x n).
template <class T>
void productNN(const T* a, const T* b, T* c, std::int64_t m, std::int64_t n, std::int64_t k) {
    if constexpr (std::is_same_v<T, float>)
        cpuKernels().productNN(a, b, c, m, n, k);
    else
        cpuimpl::productNN(a, b, c, m, n, k);
}

/// out (n x dim) = each bag's value-weighted mean of table rows.
template <class T>
void bagMean(const T* table, std::int64_t dim, const std::int64_t* offsets,
             const std::int32_t* indices, const float* values, const std::int64_t* rows,
             std::int64_t n, T* out) {
    if constexpr (std::is_same_v<T, float>)
        cpuKernels().bagMean(table, dim, offsets, indices, values, rows, n, out);
    else
        cpuimpl::bagMean(table, dim, offsets, indices, values, rows, n, out);
}

} // namespace hwl::cpu
