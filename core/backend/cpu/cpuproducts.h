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

/// entry of the table for float; own(args...) otherwise.
template <class T, class Entry, class Own, class... Args>
void dispatch(Entry HwlCpuKernels::*entry, Own own, Args... args) {
    if constexpr (std::is_same_v<T, float>)
        (cpuKernels().*entry)(args...);
    else
        own(args...);
}

/// c (m x n) = a (m x k) * b (n x k) transposed.
template <class T>
void productNT(const T* a, const T* b, T* c, std::int64_t m, std::int64_t n, std::int64_t k) {
    dispatch<T>(
        &HwlCpuKernels::productNT, [](auto... x) { cpuimpl::productNT(x...); }, a, b, c, m, n, k);
}

/// c (m x n) = a (k x m) transposed * b (k x n).
template <class T>
void productTN(const T* a, const T* b, T* c, std::int64_t m, std::int64_t n, std::int64_t k) {
    dispatch<T>(
        &HwlCpuKernels::productTN, [](auto... x) { cpuimpl::productTN(x...); }, a, b, c, m, n, k);
}

/// c (m x n) = a (m x k) * b (k x n).
template <class T>
void productNN(const T* a, const T* b, T* c, std::int64_t m, std::int64_t n, std::int64_t k) {
    dispatch<T>(
        &HwlCpuKernels::productNN, [](auto... x) { cpuimpl::productNN(x...); }, a, b, c, m, n, k);
}

/// productNT, productTN and productNN without packed copies of the
/// operands: a convolution's, where one side is a few channels.
template <class T>
void directNT(const T* a, const T* b, T* c, std::int64_t m, std::int64_t n, std::int64_t k) {
    dispatch<T>(
        &HwlCpuKernels::directNT, [](auto... x) { cpuimpl::directNT(x...); }, a, b, c, m, n, k);
}

template <class T>
void directTN(const T* a, const T* b, T* c, std::int64_t m, std::int64_t n, std::int64_t k) {
    dispatch<T>(
        &HwlCpuKernels::directTN, [](auto... x) { cpuimpl::directTN(x...); }, a, b, c, m, n, k);
}

template <class T>
void directNN(const T* a, const T* b, T* c, std::int64_t m, std::int64_t n, std::int64_t k) {
    dispatch<T>(
        &HwlCpuKernels::directNN, [](auto... x) { cpuimpl::directNN(x...); }, a, b, c, m, n, k);
}

/// out (n x dim) = each bag's value-weighted mean of table rows.
template <class T>
void bagMean(const T* table, std::int64_t dim, const std::int64_t* offsets,
             const std::int32_t* indices, const float* values, const std::int64_t* rows,
             std::int64_t n, T* out) {
    dispatch<T>(
        &HwlCpuKernels::bagMean, [](auto... x) { cpuimpl::bagMean(x...); }, table, dim, offsets,
        indices, values, rows, n, out);
}

/// grad's slots += each bag's share of dh (the bag mean's backward pass).
template <class T>
void bagScatter(const T* dh, std::int64_t dim, const std::int64_t* offsets,
                const std::int32_t* indices, const float* values, const std::int64_t* rows,
                std::int64_t n, const std::int64_t* slot, T* grad) {
    dispatch<T>(
        &HwlCpuKernels::bagScatter, [](auto... x) { cpuimpl::bagScatter(x...); }, dh, dim, offsets,
        indices, values, rows, n, slot, grad);
}

} // namespace hwl::cpu
