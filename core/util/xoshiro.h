#pragma once
// xoshiro256** seeded by splitmix64, and the derivation of stream seeds: the
// one definition that Rng (util/random.h) and the CUDA kernels' dropout
// draws (core/cuda) both use, so a replica on the GPU draws what a CPU
// worker of the same rank draws. Plain C++ without nvcc.
#include "util/hostdevice.h"

#include <cstdint>

namespace hwl::xoshiro {

/// The four words of state for `value` (splitmix64, one step per word).
HWL_HD void seed(std::uint64_t state[4], std::uint64_t value) {
    for (int i = 0; i < 4; ++i) {
        value += 0x9E3779B97F4A7C15ull;
        std::uint64_t z = value;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        state[i] = z ^ (z >> 31);
    }
}

HWL_HD std::uint64_t rotl(std::uint64_t x, int k) {
    return (x << k) | (x >> (64 - k));
}

HWL_HD std::uint64_t next(std::uint64_t state[4]) {
    const std::uint64_t result = rotl(state[1] * 5, 7) * 9;
    const std::uint64_t t = state[1] << 17;
    state[2] ^= state[0];
    state[3] ^= state[1];
    state[1] ^= state[2];
    state[0] ^= state[3];
    state[2] ^= t;
    state[3] = rotl(state[3], 45);
    return result;
}

/// Uniform in [0, 1), from the top 53 bits.
HWL_HD double uniform(std::uint64_t state[4]) {
    return double(next(state) >> 11) * 0x1.0p-53;
}

/// A seed derived from a base seed and up to two stream ids (rank, epoch).
HWL_HD std::uint64_t derive(std::uint64_t seed, std::uint64_t a, std::uint64_t b = 0) {
    std::uint64_t z = seed ^ (a * 0xD1B54A32D192ED03ull) ^ (b * 0x8CB92BA72F3D8DD7ull);
    z = (z ^ (z >> 33)) * 0xFF51AFD7ED558CCDull;
    return z ^ (z >> 33);
}

} // namespace hwl::xoshiro
