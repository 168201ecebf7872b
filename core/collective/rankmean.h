#pragma once
// The one reduction every collective uses, so every transport gives the same
// bits: out[i] = the mean of inputs[0][i] .. inputs[n-1][i], summed in rank
// order, in double.
//
// The mean of n equal floats must be that float exactly (identical replicas
// stay identical and measure at distance 0): their double sum is exact, and
// so is dividing it by n, or multiplying it by 1/n when n is a power of two
// (1/n is then exact too, and a product is far cheaper than a division).
#include <algorithm>
#include <cstdint>

namespace hwl {

/// inputs[r] + begin .. inputs[r] + end for r < n, into out + begin.
inline void meanInRankOrder(const float* const* inputs, std::uint32_t n, std::int64_t begin,
                            std::int64_t end, float* out) {
    // Block by block, so the double sums stay in a small stack array and the
    // inner loops vectorise.
    constexpr std::int64_t kBlock = 512;
    const double count = double(n);
    const bool powerOfTwo = (n & (n - 1)) == 0;
    const double inverse = 1.0 / count;
    double acc[kBlock];
    for (std::int64_t at = begin; at < end; at += kBlock) {
        const std::int64_t len = std::min(kBlock, end - at);
        const float* first = inputs[0] + at;
        for (std::int64_t j = 0; j < len; ++j)
            acc[j] = double(first[j]);
        for (std::uint32_t r = 1; r < n; ++r) {
            const float* in = inputs[r] + at;
            for (std::int64_t j = 0; j < len; ++j)
                acc[j] += double(in[j]);
        }
        if (powerOfTwo)
            for (std::int64_t j = 0; j < len; ++j)
                out[at + j] = float(acc[j] * inverse);
        else
            for (std::int64_t j = 0; j < len; ++j)
                out[at + j] = float(acc[j] / count);
    }
}

} // namespace hwl
