// The data-parallel collective's throughput against this machine's memory
// bandwidth, measured in the same run:
//   memcpy      one core copying a buffer (the bound a shared-memory
//               allreduce is made of: it copies in, reduces, copies out);
//   allreduce   ShmCollective::allreduceMean between 2 ranks, as threads and
//               as forked processes, for the blog MLP's 113 KB of gradients
//               and for 100 MB;
//   agree       one vote (the per-step agreement of sync-every K > 1).
// Figures: time per operation and the "bus bandwidth" of the buffer
// (bytes / time), as NCCL's tests report it, and its share of memcpy's.
//
//   build/bench/collective [--quick]
#include "collective/shmcollective.h"
#include "telemetry/telemetry.h"
#include "train/keepgoing.h"

#include "benchutil.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

using namespace hwl;
using namespace hwl::bench;

namespace {

/// One rank's loop: `reps` allreduces (or votes when count == 0) after a
/// warm-up; returns seconds per operation.
double rankLoop(const std::string& segment, Telemetry& t, std::uint32_t rank, std::int64_t count,
                int reps) {
    ShmCollective c(segment, rank);
    KeepGoing alive(t, rank, true);
    std::vector<float> data(std::size_t(std::max<std::int64_t>(count, 1)), float(rank));
    std::uint32_t vote = rank;
    auto once = [&] {
        return count == 0 ? c.agree(vote, alive) : c.allreduceMean(data.data(), count, alive);
    };
    for (int i = 0; i < std::max(3, reps / 10); ++i)
        once();
    const auto start = Clock::now();
    for (int i = 0; i < reps; ++i)
        if (!once())
            return -1;
    return seconds(start, Clock::now()) / reps;
}

/// Seconds per operation between 2 ranks, as threads or forked processes.
double twoRanks(bool processes, std::int64_t count, int reps) {
    Telemetry t = Telemetry::create(2, 1);
    const std::int64_t capacity = std::max<std::int64_t>(count, 4096);
    const SharedSegment segment = ShmCollective::create(2, capacity);
    if (!processes) {
        double other = 0;
        std::thread peer([&] { other = rankLoop(segment.name(), t, 1, count, reps); });
        const double mine = rankLoop(segment.name(), t, 0, count, reps);
        peer.join();
        return std::max(mine, other);
    }
    std::fflush(nullptr);
    const pid_t child = fork();
    if (child == 0)
        _exit(rankLoop(segment.name(), t, 1, count, reps) < 0 ? 1 : 0);
    const double mine = rankLoop(segment.name(), t, 0, count, reps);
    waitpid(child, nullptr, 0);
    return mine;
}

void report(const char* what, double perOp, std::size_t bytes, double copy) {
    const double gbps = double(bytes) / perOp / 1e9;
    std::printf("  %-44s %10.2f us  %7.2f GB/s  %5.0f%% of memcpy\n", what, perOp * 1e6, gbps,
                100.0 * copy / perOp);
}

} // namespace

int main(int argc, char** argv) {
    const bool quick = argc > 1 && std::string(argv[1]) == "--quick";
    const std::int64_t small = 28170;      // the blog MLP 100-256-10: 113 KB of gradients
    const std::int64_t large = 25'000'000; // 100 MB
    const int smallReps = quick ? 2000 : 20000, largeReps = quick ? 3 : 10;
    std::printf("collective: ShmCollective between 2 ranks, median of timed loops\n");
    const double copySmall = memcpySeconds(std::size_t(small) * 4, smallReps);
    const double copyLarge = memcpySeconds(std::size_t(large) * 4, largeReps);
    std::printf("  memcpy 113 KB: %.2f us (%.2f GB/s); 100 MB: %.2f ms (%.2f GB/s)\n",
                copySmall * 1e6, double(small) * 4 / copySmall / 1e9, copyLarge * 1e3,
                double(large) * 4 / copyLarge / 1e9);
    for (bool processes : {false, true}) {
        const char* kind = processes ? "processes" : "threads";
        char what[64];
        std::snprintf(what, sizeof what, "allreduce 113 KB, %s", kind);
        report(what, twoRanks(processes, small, smallReps), std::size_t(small) * 4, copySmall);
        std::snprintf(what, sizeof what, "allreduce 100 MB, %s", kind);
        report(what, twoRanks(processes, large, largeReps), std::size_t(large) * 4, copyLarge);
        const double vote = twoRanks(processes, 0, smallReps);
        std::printf("  %-44s %10.2f us\n",
                    processes ? "agree (one vote), processes" : "agree (one vote), threads",
                    vote * 1e6);
    }
    return 0;
}
