// The MPI transport's collective against Open MPI's own MPI_Allreduce and
// this machine's memcpy, between the ranks mpirun started (2 on one
// machine: over shared memory by default, over TCP with --mca btl
// self,tcp):
//   MpiCollective  the data-parallel transport (collective/mpi): every rank
//                  sends its buffer to rank 0, which sums each element over
//                  the ranks in rank order in double and sends the mean back
//                  (bit-identical to the shared-memory collective);
//   MPI_Allreduce  Open MPI's float sum in place (its own algorithm; the
//                  bits depend on it), the anchor;
//   agree          one vote (the per-step agreement of sync-every K > 1).
// Figures as bench/collective's: time per operation, bytes / time, share of
// memcpy's.
//
//   mpirun -np 2 [--mca btl self,tcp] build/bench/mpicollective [--quick] [LABEL]
#include "collective/mpi/mpicollective.h"
#include "collective/mpi/mpijob.h"
#include "telemetry/telemetry.h"
#include "train/keepgoing.h"

#include "benchutil.h"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <unistd.h>

using namespace hwl;
using namespace hwl::bench;

namespace {

/// Seconds per `op()` over `reps` calls after a warm-up, the slowest rank's.
template <typename Op>
double timed(Op op, int reps) {
    for (int i = 0; i < std::max(3, reps / 10); ++i)
        op();
    MPI_Barrier(MPI_COMM_WORLD);
    const auto start = Clock::now();
    for (int i = 0; i < reps; ++i)
        op();
    double mine = seconds(start, Clock::now()) / reps, slowest = 0;
    MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return slowest;
}

void report(bool speak, const std::string& what, double perOp, std::size_t bytes, double copy) {
    if (speak)
        std::printf("  %-44s %10.2f us  %7.2f GB/s  %5.0f%% of memcpy\n", what.c_str(), perOp * 1e6,
                    double(bytes) / perOp / 1e9, 100.0 * copy / perOp);
}

} // namespace

int main(int argc, char** argv) {
    bool quick = false;
    std::string label = "mpi";
    for (int i = 1; i < argc; ++i)
        (std::string(argv[i]) == "--quick" ? (void)(quick = true) : (void)(label = argv[i]));
    if (!mpi::startedByMpirun()) {
        std::fprintf(stderr, "mpicollective: run it under mpirun: mpirun -np 2 %s\n", argv[0]);
        return 2;
    }
    const mpi::JobInfo& job = mpi::join();
    const bool speak = job.rank == 0;
    const std::int64_t small = 28170;      // the blog MLP 100-256-10: 113 KB of gradients
    const std::int64_t large = 25'000'000; // 100 MB
    const int smallReps = quick ? 2000 : 20000, largeReps = quick ? 3 : 10;
    Telemetry t = Telemetry::create(job.size, 1);
    mpi::Greeting g;
    g.pid = std::int32_t(getpid());
    g.host = job.host;
    auto c = makeMpiCollective(t, job.rank, large, g);
    KeepGoing alive(t, job.rank, /*watchPeers=*/true);
    if (!c->open(alive)) {
        std::fprintf(stderr, "mpicollective: rank %u could not meet the others\n", job.rank);
        mpi::leave(false);
        return 1;
    }
    if (speak)
        std::printf("mpi collective (%s): %u ranks, median of timed loops\n", label.c_str(),
                    job.size);
    const double copySmall = memcpySeconds(std::size_t(small) * 4, smallReps);
    const double copyLarge = memcpySeconds(std::size_t(large) * 4, largeReps);
    if (speak)
        std::printf("  memcpy 113 KB: %.2f us (%.2f GB/s); 100 MB: %.2f ms (%.2f GB/s)\n",
                    copySmall * 1e6, double(small) * 4 / copySmall / 1e9, copyLarge * 1e3,
                    double(large) * 4 / copyLarge / 1e9);
    std::vector<float> data(std::size_t(large), float(job.rank));
    for (const auto& [count, reps, copy, size] :
         {std::tuple{small, smallReps, copySmall, "113 KB"},
          std::tuple{large, largeReps, copyLarge, "100 MB"}}) {
        const std::size_t bytes = std::size_t(count) * 4;
        report(speak, std::string("allreduce ") + size + ", " + label + ", MpiCollective",
               timed([&] { c->allreduceMean(data.data(), count, alive); }, reps), bytes, copy);
        report(speak, std::string("allreduce ") + size + ", " + label + ", MPI_Allreduce",
               timed(
                   [&] {
                       MPI_Allreduce(MPI_IN_PLACE, data.data(), int(count), MPI_FLOAT, MPI_SUM,
                                     MPI_COMM_WORLD);
                   },
                   reps),
               bytes, copy);
    }
    std::uint32_t vote = job.rank;
    const double agree = timed([&] { c->agree(vote, alive); }, smallReps);
    if (speak)
        std::printf("  %-44s %10.2f us\n", ("agree (one vote), " + label).c_str(), agree * 1e6);
    c->close();
    mpi::leave(true);
    return 0;
}
