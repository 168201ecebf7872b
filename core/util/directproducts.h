#pragma once
// Matrix products with one short side, computed straight from the operands
// in registers: no packed copies. A convolution's products have that shape
// (cnn:mnist's 10 and 20 output channels against thousands of patch
// columns; its weight gradients are 10x25 and 20x250 sums over those
// columns), where Eigen's general product spends a fifth of its time
// copying its operands into blocks (perf, bench/stepkernel). Each function
// keeps the accumulators of a block of the result in vector registers and
// streams the operands once per block; the instruction set is the
// translation unit's (cpukernelimpl.h), the vector width Eigen's packet.
#include <Eigen/Core>

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <utility>

namespace hwl::direct {

template <class T>
using Packet = typename Eigen::internal::packet_traits<T>::type;
template <class T>
constexpr int kLanes = Eigen::internal::unpacket_traits<Packet<T>>::size;
/// Vector registers: 32 with AVX-512's 16 floats, 16 below it.
template <class T>
constexpr int kRegisters = kLanes<T> * sizeof(T) >= 64 ? 32 : 16;

/// f(std::integral_constant<int, R>) for the runtime r in [1, Max].
template <int Max, class F>
void withRows(int r, F&& f) {
    if constexpr (Max > 0) {
        if (r == Max)
            f(std::integral_constant<int, Max>());
        else
            withRows<Max - 1>(r, std::forward<F>(f));
    }
}

/// The sizes of `parts` near-equal parts of `total`, the first `total % parts`
/// one larger: rows split so that no block is left with a lone row.
inline int partSize(std::int64_t total, std::int64_t parts, std::int64_t index) {
    return int(total / parts + (index < total % parts ? 1 : 0));
}

/// c's rows [0, R) (row stride ldc) = a (R x k, element (r, j) at
/// a[r * rowStep + j * depthStep]) times b (k x n, row stride ldb), for the
/// columns [col, col + W * lanes).
template <class T, int R, int W>
inline void rowsBlock(const T* a, std::int64_t rowStep, std::int64_t depthStep, const T* b,
                      std::int64_t ldb, T* c, std::int64_t ldc, std::int64_t k, std::int64_t col) {
    using namespace Eigen::internal;
    using P = Packet<T>;
    constexpr int L = kLanes<T>;
    P acc[R][W];
    for (int r = 0; r < R; ++r)
        for (int w = 0; w < W; ++w)
            acc[r][w] = pset1<P>(T(0));
    for (std::int64_t j = 0; j < k; ++j) {
        const T* row = b + j * ldb + col;
        P bs[W];
        for (int w = 0; w < W; ++w)
            bs[w] = ploadu<P>(row + w * L);
        const T* at = a + j * depthStep;
        for (int r = 0; r < R; ++r) {
            const P x = pset1<P>(at[r * rowStep]);
            for (int w = 0; w < W; ++w)
                acc[r][w] = pmadd(x, bs[w], acc[r][w]);
        }
    }
    for (int r = 0; r < R; ++r)
        for (int w = 0; w < W; ++w)
            pstoreu(c + r * ldc + col + w * L, acc[r][w]);
}

/// The columns past the last whole vector, one at a time.
template <class T>
void rowsTail(const T* a, std::int64_t rows, std::int64_t rowStep, std::int64_t depthStep,
              const T* b, std::int64_t n, T* c, std::int64_t k, std::int64_t from) {
    for (std::int64_t r = 0; r < rows; ++r)
        for (std::int64_t col = from; col < n; ++col) {
            T sum = 0;
            for (std::int64_t j = 0; j < k; ++j)
                sum += a[r * rowStep + j * depthStep] * b[j * n + col];
            c[r * n + col] = sum;
        }
}

/// c (m x n) = a (m x k, element (r, j) at a[r * rowStep + j * depthStep])
/// times b (k x n); all row-major. Suits a short m: each block of columns
/// of b is read once for every block of up to kRegisters/2 - 4 rows.
template <class T>
void fewRowsTimes(const T* a, std::int64_t rowStep, std::int64_t depthStep, const T* b, T* c,
                  std::int64_t m, std::int64_t n, std::int64_t k) {
    constexpr int L = kLanes<T>, W = 2, MaxRows = (kRegisters<T> - W - 1) / W;
    const std::int64_t parts = (m + MaxRows - 1) / MaxRows, whole = n / L * L;
    std::int64_t col = 0;
    auto blocks = [&](auto width, std::int64_t at) {
        std::int64_t row = 0;
        for (std::int64_t part = 0; part < parts; ++part) {
            const int rows = partSize(m, parts, part);
            withRows<MaxRows>(rows, [&](auto R) {
                rowsBlock<T, R(), decltype(width)::value>(a + row * rowStep, rowStep, depthStep, b,
                                                          n, c + row * n, n, k, at);
            });
            row += rows;
        }
    };
    for (; col + W * L <= n; col += W * L)
        blocks(std::integral_constant<int, W>(), col);
    for (; col < whole; col += L)
        blocks(std::integral_constant<int, 1>(), col);
    rowsTail(a, m, rowStep, depthStep, b, n, c, k, whole);
}

/// c's block [RA rows from a's row i] x [RB rows from b's row j] = the dot
/// products of those rows of a and b, each k long.
template <class T, int RA, int RB>
inline void dotsBlock(const T* a, const T* b, T* c, std::int64_t ldc, std::int64_t k) {
    using namespace Eigen::internal;
    using P = Packet<T>;
    constexpr int L = kLanes<T>;
    P acc[RA][RB];
    for (int r = 0; r < RA; ++r)
        for (int s = 0; s < RB; ++s)
            acc[r][s] = pset1<P>(T(0));
    const std::int64_t whole = k / L * L;
    for (std::int64_t j = 0; j < whole; j += L) {
        P bs[RB];
        for (int s = 0; s < RB; ++s)
            bs[s] = ploadu<P>(b + s * k + j);
        for (int r = 0; r < RA; ++r) {
            const P x = ploadu<P>(a + r * k + j);
            for (int s = 0; s < RB; ++s)
                acc[r][s] = pmadd(x, bs[s], acc[r][s]);
        }
    }
    for (int r = 0; r < RA; ++r)
        for (int s = 0; s < RB; ++s) {
            T lanes[L]; // predux of a double packet trips GCC 12's -Wuninitialized
            pstoreu(lanes, acc[r][s]);
            T sum = 0;
            for (int l = 0; l < L; ++l)
                sum += lanes[l];
            for (std::int64_t j = whole; j < k; ++j)
                sum += a[r * k + j] * b[s * k + j];
            c[r * ldc + s] = sum;
        }
}

/// c (m x n) = a (m x k) times b (n x k) transposed, row-major: m * n dot
/// products of long rows (a weight gradient summed over a batch's columns).
template <class T>
void rowDots(const T* a, const T* b, T* c, std::int64_t m, std::int64_t n, std::int64_t k) {
    constexpr int MaxA = kRegisters<T> >= 32 ? 4 : 3, MaxB = kRegisters<T> >= 32 ? 5 : 3;
    const std::int64_t partsA = (m + MaxA - 1) / MaxA, partsB = (n + MaxB - 1) / MaxB;
    std::int64_t i = 0;
    for (std::int64_t pa = 0; pa < partsA; ++pa) {
        const int ra = partSize(m, partsA, pa);
        std::int64_t j = 0;
        for (std::int64_t pb = 0; pb < partsB; ++pb) {
            const int rb = partSize(n, partsB, pb);
            withRows<MaxA>(ra, [&](auto RA) {
                withRows<MaxB>(rb, [&](auto RB) {
                    dotsBlock<T, RA(), RB()>(a + i * k, b + j * k, c + i * n + j, n, k);
                });
            });
            j += rb;
        }
        i += ra;
    }
}

} // namespace hwl::direct
