#pragma once
// A small, fast, portable random generator (xoshiro256** seeded by
// splitmix64: util/xoshiro.h, which the CUDA kernels share). Portable on purpose:
// std::normal_distribution differs between standard libraries, and a seeded run must give the same
// numbers everywhere.
#include "util/xoshiro.h"

#include <cmath>
#include <cstdint>

namespace hwl {

class Rng {
public:
    explicit Rng(std::uint64_t seed) { xoshiro::seed(state_, seed); }
    /// A seed derived from a base seed and up to two stream ids (rank, epoch).
    static std::uint64_t derive(std::uint64_t seed, std::uint64_t a, std::uint64_t b = 0) {
        return xoshiro::derive(seed, a, b);
    }

    std::uint64_t next() { return xoshiro::next(state_); }
    /// Uniform in [0, 1).
    double uniform() { return xoshiro::uniform(state_); }
    /// Uniform in [lo, hi).
    float uniform(float lo, float hi) { return lo + float(uniform()) * (hi - lo); }
    /// Uniform integer in [0, n), n > 0 (Lemire's multiply-shift, bias < 2^-64 * n).
    std::uint64_t below(std::uint64_t n) {
        __extension__ using Wide = unsigned __int128;
        return std::uint64_t((static_cast<Wide>(next()) * n) >> 64);
    }
    /// Standard normal (Box-Muller; one value per call, the pair's twin is kept).
    double normal() {
        if (hasSpare_) {
            hasSpare_ = false;
            return spare_;
        }
        double u1 = 0.0;
        do {
            u1 = uniform();
        } while (u1 <= 0.0);
        const double u2 = uniform();
        const double r = std::sqrt(-2.0 * std::log(u1));
        spare_ = r * std::sin(2.0 * M_PI * u2);
        hasSpare_ = true;
        return r * std::cos(2.0 * M_PI * u2);
    }

private:
    std::uint64_t state_[4];
    double spare_ = 0.0;
    bool hasSpare_ = false;
};

} // namespace hwl
