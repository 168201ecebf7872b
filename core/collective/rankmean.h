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
#include "util/cpukernels.h"

#include <cstdint>

namespace hwl {

/// inputs[r] + begin .. inputs[r] + end for r < n, into out + begin: through
/// the CPU kernel table (util/cpukernelimpl.h holds the arithmetic), so a
/// portable build reduces with the widest instruction set the processor runs.
inline void meanInRankOrder(const float* const* inputs, std::uint32_t n, std::int64_t begin,
                            std::int64_t end, float* out) {
    cpuKernels().meanInRankOrder(inputs, n, begin, end, out);
}

} // namespace hwl
