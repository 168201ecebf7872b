#pragma once
// A small, fast, portable random generator (xoshiro256** seeded by
// splitmix64). Portable on purpose: std::normal_distribution differs between
// standard libraries, and a seeded run must give the same numbers everywhere.
#include <cmath>
#include <cstdint>

namespace hwl {

class Rng {
public:
    explicit Rng(std::uint64_t seed) {
        for (auto& s : state_) {
            seed += 0x9E3779B97F4A7C15ull;
            std::uint64_t z = seed;
            z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
            z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
            s = z ^ (z >> 31);
        }
    }
    /// A seed derived from a base seed and up to two stream ids (rank, epoch).
    static std::uint64_t derive(std::uint64_t seed, std::uint64_t a, std::uint64_t b = 0) {
        std::uint64_t z = seed ^ (a * 0xD1B54A32D192ED03ull) ^ (b * 0x8CB92BA72F3D8DD7ull);
        z = (z ^ (z >> 33)) * 0xFF51AFD7ED558CCDull;
        return z ^ (z >> 33);
    }

    std::uint64_t next() {
        const std::uint64_t result = rotl(state_[1] * 5, 7) * 9;
        const std::uint64_t t = state_[1] << 17;
        state_[2] ^= state_[0];
        state_[3] ^= state_[1];
        state_[1] ^= state_[2];
        state_[0] ^= state_[3];
        state_[2] ^= t;
        state_[3] = rotl(state_[3], 45);
        return result;
    }
    /// Uniform in [0, 1).
    double uniform() { return double(next() >> 11) * 0x1.0p-53; }
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
    static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
    std::uint64_t state_[4];
    double spare_ = 0.0;
    bool hasSpare_ = false;
};

} // namespace hwl
