// The data-parallel collective's throughput against this machine's memory
// bandwidth, measured in the same run:
//   memcpy      one core copying a buffer (the bound a shared-memory
//               allreduce is made of);
//   allreduce   between 2 ranks, as threads and as forked processes, for the
//               blog MLP's 113 KB of gradients and for 100 MB:
//                 in place: what data-parallel training does; each rank's
//                   backward pass wrote its gradient into its slot (untimed
//                   here, as it is the step's own work, and followed by an
//                   untimed vote, so the ranks start together), reduceSlot()
//                   leaves the mean where every rank reads it;
//                 + read: the same and one pass reading the whole mean (what
//                   the replica's SGD step reads; half of it comes from the
//                   other core's cache);
//                 copy in/out: allreduceMean() on a private buffer (the
//                   copy in, the reduction, the copy out);
//   agree       one vote (the per-step agreement of sync-every K > 1);
//   crowded     4 and 8 ranks (threads) on this machine's cores: the in-place
//               113 KB allreduce, the cores it keeps busy (CPU time over wall
//               time) and the CPU time per operation (--spin-us 0 compares a
//               wait that sleeps at once).
// Figures: time per operation (the median operation of a timed loop, and its
// 10th percentile: this machine is shared) and the "bus
// bandwidth" of the buffer (bytes / time), as NCCL's tests report it, and
// its share of memcpy's.
//
//   build/bench/collective [--quick] [--only small|large|crowded]
//                          [--spin-us N --yield-us N]  (compare wait policies)
#include "collective/shmcollective.h"
#include "telemetry/telemetry.h"
#include "train/keepgoing.h"

#include "benchutil.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <string>
#include <thread>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

using namespace hwl;
using namespace hwl::bench;

namespace {

enum class Kind { InPlace, InPlaceRead, CopyInOut, Vote };

struct Options {
    bool quick = false;
    std::string only;
    std::int64_t spinNs = -1; ///< -1: the collective's own policy
    std::int64_t yieldNs = 0;
};

struct Op {
    Kind kind;
    std::int64_t count;
    int reps;
};

/// Seconds per operation: the median, and the 10th percentile (what an
/// operation costs when both ranks hold their cores: this machine is shared).
struct Timing {
    double median = -1, low = -1;
};

/// One rank's loop: a warm-up, then op.reps timed operations (-1 when one
/// failed).
/// Only the collective is timed: the in-place kinds first write the rank's
/// gradient into its slot, untimed, as a backward pass would.
Timing rankLoop(const std::string& segment, Telemetry& t, std::uint32_t rank, const Op& op,
                const Options& o) {
    ShmCollective c(segment, rank);
    if (o.spinNs >= 0)
        c.setSpin(o.spinNs, o.yieldNs);
    KeepGoing alive(t, rank, true);
    std::vector<float> data(std::size_t(std::max<std::int64_t>(op.count, 1)), float(rank));
    float* slot = c.gradientSlot(op.count);
    volatile float sink = 0;
    std::uint32_t vote = rank;
    std::int64_t step = 0;
    const auto once = [&](std::vector<double>& timed) {
        if (slot) { // a whole new gradient each step, as a backward pass writes one
            std::fill(slot, slot + op.count, float(rank + 2 * (++step & 1)));
            std::uint32_t ready = 0; // then the ranks start the timed part together
            if (!c.agree(ready, alive))
                return false;
        }
        const auto start = Clock::now();
        bool ok = true;
        switch (op.kind) {
        case Kind::Vote:
            ok = c.agree(vote, alive);
            break;
        case Kind::CopyInOut:
            ok = c.allreduceMean(data.data(), op.count, alive);
            break;
        case Kind::InPlace:
        case Kind::InPlaceRead: {
            const float* mean = c.reduceSlot(0, op.count, alive);
            ok = mean != nullptr;
            if (ok && op.kind == Kind::InPlaceRead) {
                float s = 0;
                for (std::int64_t i = 0; i < op.count; i += 16) // a load per cache line
                    s += mean[i];
                sink = sink + s;
            }
        }
        }
        timed.push_back(seconds(start, Clock::now()));
        return ok;
    };
    std::vector<double> times;
    for (int i = 0; i < std::max(3, op.reps / 10); ++i)
        once(times);
    times.clear();
    for (int i = 0; i < op.reps; ++i)
        if (!once(times))
            return {};
    std::sort(times.begin(), times.end());
    return {times[times.size() / 2], times[times.size() / 10]};
}

/// Seconds per operation over `ranks` ranks (rank 0's), as threads or forked
/// processes; `busyCores`: the process's CPU time over the wall time (threads).
Timing onRanks(std::uint32_t ranks, bool processes, const Op& op, const Options& o,
               double* busyCores = nullptr) {
    Telemetry t = Telemetry::create(ranks, 1);
    const std::int64_t capacity = std::max<std::int64_t>(op.count, 4096);
    const bool inPlace = op.kind == Kind::InPlace || op.kind == Kind::InPlaceRead;
    const SharedSegment segment = ShmCollective::create(
        ranks, op.kind == Kind::CopyInOut ? capacity : 4096, inPlace ? op.count : 0);
    if (!processes) {
        timespec cpu0{}, cpu1{};
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu0);
        const auto wall0 = Clock::now();
        std::vector<std::thread> peers;
        for (std::uint32_t r = 1; r < ranks; ++r)
            peers.emplace_back([&, r] { rankLoop(segment.name(), t, r, op, o); });
        const Timing mine = rankLoop(segment.name(), t, 0, op, o);
        for (auto& p : peers)
            p.join();
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu1);
        if (busyCores)
            *busyCores =
                (double(cpu1.tv_sec - cpu0.tv_sec) + 1e-9 * double(cpu1.tv_nsec - cpu0.tv_nsec)) /
                seconds(wall0, Clock::now());
        return mine;
    }
    std::fflush(nullptr);
    std::vector<pid_t> children;
    for (std::uint32_t r = 1; r < ranks; ++r) {
        const pid_t child = fork();
        if (child == 0)
            _exit(rankLoop(segment.name(), t, r, op, o).median < 0 ? 1 : 0);
        children.push_back(child);
    }
    const Timing mine = rankLoop(segment.name(), t, 0, op, o);
    for (const pid_t child : children)
        waitpid(child, nullptr, 0);
    return mine;
}

void report(const std::string& what, Timing perOp, std::size_t bytes, double copy) {
    const double gbps = double(bytes) / perOp.median / 1e9;
    std::printf("  %-44s %10.2f us  %7.2f GB/s  %5.0f%% of memcpy  (p10 %.2f us)\n", what.c_str(),
                perOp.median * 1e6, gbps, 100.0 * copy / perOp.median, perOp.low * 1e6);
}

Options parse(int argc, char** argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        const bool more = i + 1 < argc;
        if (a == "--quick")
            o.quick = true;
        else if (a == "--only" && more)
            o.only = argv[++i];
        else if (a == "--spin-us" && more)
            o.spinNs = std::stoll(argv[++i]) * 1000;
        else if (a == "--yield-us" && more)
            o.yieldNs = std::stoll(argv[++i]) * 1000;
        else {
            std::fprintf(stderr, "usage: collective [--quick] [--only small|large|crowded] "
                                 "[--spin-us N --yield-us N]\n");
            std::exit(2);
        }
    }
    return o;
}

} // namespace

int main(int argc, char** argv) {
    const Options o = parse(argc, argv);
    const auto want = [&](const char* part) { return o.only.empty() || o.only == part; };
    const std::int64_t small = 28426;      // the blog MLP 100-256-10: 113 KB of gradients
    const std::int64_t large = 25'000'000; // 100 MB
    const int smallReps = o.quick ? 1000 : 10000, largeReps = o.quick ? 3 : 7;
    std::printf("collective: ShmCollective between 2 ranks, the median operation of a timed "
                "loop (and its 10th percentile)\n");
    const double copySmall = memcpySeconds(std::size_t(small) * 4, smallReps);
    const double copyLarge = want("large") ? memcpySeconds(std::size_t(large) * 4, largeReps) : 0;
    std::printf("  memcpy 113 KB: %.2f us (%.2f GB/s); 100 MB: %.2f ms (%.2f GB/s)\n",
                copySmall * 1e6, double(small) * 4 / copySmall / 1e9, copyLarge * 1e3,
                copyLarge > 0 ? double(large) * 4 / copyLarge / 1e9 : 0.0);
    for (bool processes : {false, true}) {
        const std::string kind = processes ? "processes" : "threads";
        if (want("small")) {
            for (const auto& [k, label] : {std::pair{Kind::InPlace, "in place"},
                                           std::pair{Kind::InPlaceRead, "in place + read"},
                                           std::pair{Kind::CopyInOut, "copy in/out"}})
                report("allreduce 113 KB " + std::string(label) + ", " + kind,
                       onRanks(2, processes, {k, small, smallReps}, o), std::size_t(small) * 4,
                       copySmall);
            std::printf("  %-44s %10.2f us\n", ("agree (one vote), " + kind).c_str(),
                        onRanks(2, processes, {Kind::Vote, 0, smallReps}, o).median * 1e6);
        }
        if (want("large"))
            for (const auto& [k, label] :
                 {std::pair{Kind::InPlace, "in place"}, std::pair{Kind::CopyInOut, "copy in/out"}})
                report("allreduce 100 MB " + std::string(label) + ", " + kind,
                       onRanks(2, processes, {k, large, largeReps}, o), std::size_t(large) * 4,
                       copyLarge);
    }
    if (want("crowded"))
        for (const std::uint32_t ranks : {4u, 8u}) {
            double busy = 0;
            const Timing perOp =
                onRanks(ranks, false, {Kind::InPlace, small, smallReps / 4}, o, &busy);
            // CPU per operation: what the ranks' work and waits cost together
            // (a wait that sleeps at once pays in system calls instead).
            std::printf("  crowded: %u ranks on %u cores, allreduce 113 KB in place, threads "
                        "%10.2f us  %.2f cores busy, %.1f us of CPU per operation\n",
                        ranks, std::thread::hardware_concurrency(), perOp.median * 1e6, busy,
                        busy * perOp.median * 1e6);
        }
    return 0;
}
