#pragma once
// The shared-counter toy: the smallest lost-update race there is. N workers
// (threads) each add 1 to ONE shared float M times, three ways:
//   plain:  load, add, store (what `p[i] -= lr * g[i]` on shared parameters
//           does): two workers that load the same value both store value + 1,
//           and one increment is lost;
//   atomic: one indivisible read-modify-write (a compare-exchange loop);
//   locked: the plain increment under one mutex.
// Only `plain` can end below N * M; the difference is the increments lost.
// The loads and stores are relaxed atomics, so the race is a defined one
// (ThreadSanitizer has nothing to report) and still loses updates as a
// plain float would.
#include <cstdint>
#include <string>
#include <vector>

namespace hwl {

struct CounterToyResult {
    std::string way; ///< "plain", "atomic", "locked"
    std::string how; ///< a few words on what each increment is
    std::uint64_t expected = 0;
    double final = 0;       ///< the counter's value at the end
    std::uint64_t lost = 0; ///< expected - final
    double seconds = 0;     ///< from the workers' common start to the last one's end
};

/// Floats count exactly up to 2^24: workers * increments may not pass it.
constexpr std::uint64_t kCounterToyMaxTotal = std::uint64_t(1) << 24;

/// The toy's default increments per worker: 1000000, or fewer so that a
/// float counts them all exactly.
std::int64_t counterToyDefaultIncrements(int workers);

/// Why these sizes cannot run, or empty (1..256 workers, increments >= 1,
/// workers * increments <= kCounterToyMaxTotal).
std::string counterToyProblem(int workers, std::int64_t increments);

/// Runs plain, atomic and locked in turn. Throws InputError when
/// counterToyProblem() is not empty.
std::vector<CounterToyResult> runCounterToy(int workers, std::int64_t increments);

} // namespace hwl
