#pragma once
// What the collective benchmarks share: a clock and this machine's memcpy.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <vector>

namespace hwl::bench {

using Clock = std::chrono::steady_clock;

inline double seconds(Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double>(b - a).count();
}

/// Seconds per copy of `bytes`, the median of 5 timings of `reps` copies.
inline double memcpySeconds(std::size_t bytes, int reps) {
    std::vector<char> a(bytes, 1), b(bytes, 2);
    std::vector<double> times;
    for (int t = 0; t < 5; ++t) {
        const auto start = Clock::now();
        for (int i = 0; i < reps; ++i) {
            std::memcpy(b.data(), a.data(), bytes);
            a[std::size_t(i) % bytes] = b[std::size_t(i * 7) % bytes];
        }
        times.push_back(seconds(start, Clock::now()) / reps);
    }
    std::sort(times.begin(), times.end());
    return times[2];
}

} // namespace hwl::bench
