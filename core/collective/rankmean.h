#pragma once
// The one reduction every collective uses, so every transport gives the same
// bits: out[i] = the mean of inputs[0][i] .. inputs[n-1][i], summed in rank
// order, in double.
//
// The mean of n equal floats must be that float exactly (identical replicas
// stay identical and measure at distance 0): their double sum is exact, and
// so is dividing it by n, or multiplying it by 1/n when n is a power of two
// (1/n is then exact too, and a product is far cheaper than a division).
//
// Each element is summed on its own, so which rank computes which elements
// (the shared-memory collective's stripes) changes no bit. The passes are
// fused (the first two ranks' sum starts the accumulator, the last rank's
// ends it).
//
// Two ranks, the common case, take a float path with the same bits, 2.5
// times faster than the conversions to double: when the float sum s =
// fl(a + b) is finite and at least twice the smallest normal float, s * 0.5
// is exact and equals the correctly rounded (a + b) / 2, which is what the
// double formula gives (the double sum of two floats is exact, or, when
// their exponents lie more than 29 apart, so close to the larger that
// rounding it to float cannot differ). A block with any other element (tiny,
// subnormal, huge or not finite) is done in double. tst_collective checks
// the two paths against each other on millions of bit patterns.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>

namespace hwl {

namespace detail {
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
} // namespace detail

/// inputs[r] + begin .. inputs[r] + end for r < n, into out + begin.
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
        if (n == 2 && detail::meanOfTwoInFloat(first, last, len, out + at))
            continue;
        if (powerOfTwo)
            detail::finishMean<true>(sums, first, last, len, count, inverse, out + at);
        else
            detail::finishMean<false>(sums, first, last, len, count, inverse, out + at);
    }
}

} // namespace hwl
