// The MPI transport's two reductions against Open MPI's own MPI_Allreduce
// and this machine's memcpy, between the ranks mpirun started (2 on one
// machine: over shared memory by default, over TCP with --mca btl
// self,tcp):
//   MpiCollective (reduce mpi)    the default (core/mpi): Open MPI's
//                                 reduce-scatter then allgather, polled
//                                 under the liveness check;
//   MpiCollective (reduce exact)  every rank sends its buffer to rank 0,
//                                 which sums each element over the ranks
//                                 in rank order in double and sends the
//                                 mean back (the other transports' bits);
//   MPI_Allreduce                 Open MPI's float sum in place (its own
//                                 algorithm), the anchor;
//   agree                         one vote (sync-every K > 1's per step).
// The three are timed in turns, in many short rounds, each round's figures
// side by side; a line gives the median round, and the ratio line the fast
// path's speed as a share of MPI_Allreduce's (median of the rounds' ratios,
// their middle half and their range).
//
// --bytes: instead, the bytes each rank sends and receives per 113 KB
// reduction under each way, over TCP (--mca btl self,tcp): what the rank
// passed to the sockets' writev and readv (/proc/self/io), headers and the
// messages inside MPI's collectives included. (Open MPI 4.1's pml
// monitoring counters would count shared memory too, but its monitoring
// PML is not selected in Debian's build.)
//
//   mpirun -np 2 [--mca btl self,tcp] build/bench/mpicollective [--quick] [LABEL]
//   mpirun -np N --mca btl self,tcp build/bench/mpicollective --bytes
#include "mpi/mpicollective.h"
#include "mpi/mpijob.h"
#include "telemetry/telemetry.h"
#include "train/keepgoing.h"

#include "benchutil.h"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <unistd.h>

using namespace hwl;
using namespace hwl::bench;

namespace {

/// The blog MLP 100-256-10: 100*256 + 256 + 256*10 + 10 floats, 113 KB.
constexpr std::int64_t kBlogFloats = 28426;

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
        std::printf("  %-52s %10.2f us  %7.2f GB/s  %5.0f%% of memcpy\n", what.c_str(), perOp * 1e6,
                    double(bytes) / perOp / 1e9, 100.0 * copy / perOp);
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

/// One collective per reduction way, each on its own communicator.
struct Collectives {
    std::unique_ptr<Collective> fast, exact;
};

Collectives makeCollectives(Telemetry& t, const mpi::JobInfo& job, std::int64_t capacity,
                            KeepGoing& alive) {
    Collectives c;
    for (auto [slot, way] :
         {std::pair{&c.fast, MpiReduction::Collective}, std::pair{&c.exact, MpiReduction::Hub}}) {
        MPI_Comm comm;
        MPI_Comm_dup(MPI_COMM_WORLD, &comm);
        mpi::Greeting g;
        g.pid = std::int32_t(getpid());
        g.host = job.host;
        *slot = makeMpiCollective(t, job.rank, capacity, g, way, int(MPI_Comm_c2f(comm)));
        if (!(*slot)->open(alive)) {
            std::fprintf(stderr, "mpicollective: rank %u could not meet the others\n", job.rank);
            mpi::leave(false);
            std::exit(1);
        }
    }
    return c;
}

/// Bytes this process passed to read()/readv() and write()/writev() so
/// far (/proc/self/io's rchar and wchar): over Open MPI's TCP transport,
/// every byte of every message, headers included, collectives' too.
std::pair<double, double> ioBytes() {
    std::FILE* f = std::fopen("/proc/self/io", "re");
    double read = 0, written = 0;
    char line[128];
    while (f && std::fgets(line, sizeof line, f)) {
        unsigned long long v = 0;
        if (std::sscanf(line, "rchar: %llu", &v) == 1)
            read = double(v);
        else if (std::sscanf(line, "wchar: %llu", &v) == 1)
            written = double(v);
    }
    if (f)
        std::fclose(f);
    return {read, written};
}

/// Bytes each rank sends and receives per reduction of the blog MLP's
/// buffer under each way, printed by rank 0 (run over --mca btl self,tcp:
/// shared memory moves bytes no counter sees).
int countBytes(const mpi::JobInfo& job, Collectives& c, KeepGoing& alive) {
    std::vector<float> data(std::size_t(kBlogFloats), float(job.rank));
    const int reps = 200;
    for (auto [way, collective] :
         {std::pair{"mpi", c.fast.get()}, std::pair{"exact", c.exact.get()}}) {
        collective->allreduceMean(data.data(), kBlogFloats, alive); // warm-up
        MPI_Barrier(MPI_COMM_WORLD);
        const auto before = ioBytes();
        for (int i = 0; i < reps; ++i)
            collective->allreduceMean(data.data(), kBlogFloats, alive);
        const auto after = ioBytes();
        const double mine[2] = {(after.second - before.second) / reps,
                                (after.first - before.first) / reps};
        std::vector<double> all(2 * std::size_t(job.size));
        MPI_Gather(mine, 2, MPI_DOUBLE, all.data(), 2, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        for (std::uint32_t r = 0; job.rank == 0 && r < job.size; ++r)
            std::printf("bytes reduce %s ranks %u rank %u sent %.0f received %.0f buffer %lld\n",
                        way, job.size, r, all[2 * r], all[2 * r + 1], (long long)(kBlogFloats * 4));
    }
    return 0;
}

void timeAll(bool speak, const std::string& label, Collectives& c, KeepGoing& alive, bool quick) {
    const std::int64_t small = kBlogFloats;
    const std::int64_t large = 25'000'000; // 100 MB
    // Short rounds, many of them: the three ways see the same load (the
    // machine is shared), and the per-round ratio cancels what it does.
    const int smallRounds = quick ? 20 : 60, largeRounds = quick ? 2 : 3;
    const int smallReps = quick ? 100 : 200, largeReps = quick ? 1 : 2;
    const int rank = speak ? 0 : 1;
    const double copySmall = memcpySeconds(std::size_t(small) * 4, 1000);
    const double copyLarge = memcpySeconds(std::size_t(large) * 4, 3);
    if (speak)
        std::printf("  memcpy 113 KB: %.2f us (%.2f GB/s); 100 MB: %.2f ms (%.2f GB/s)\n",
                    copySmall * 1e6, double(small) * 4 / copySmall / 1e9, copyLarge * 1e3,
                    double(large) * 4 / copyLarge / 1e9);
    std::vector<float> data(static_cast<std::size_t>(large), static_cast<float>(rank));
    for (const auto& [count, reps, rounds, copy, size] :
         {std::tuple{small, smallReps, smallRounds, copySmall, "113 KB"},
          std::tuple{large, largeReps, largeRounds, copyLarge, "100 MB"}}) {
        const std::size_t bytes = std::size_t(count) * 4;
        std::vector<double> fast, exact, anchor, ratio;
        for (int round = 0; round < rounds; ++round) {
            fast.push_back(timed([&] { c.fast->allreduceMean(data.data(), count, alive); }, reps));
            anchor.push_back(timed(
                [&] {
                    MPI_Allreduce(MPI_IN_PLACE, data.data(), int(count), MPI_FLOAT, MPI_SUM,
                                  MPI_COMM_WORLD);
                },
                reps));
            exact.push_back(
                timed([&] { c.exact->allreduceMean(data.data(), count, alive); }, reps));
            ratio.push_back(anchor.back() / fast.back());
        }
        const std::string what = std::string("allreduce ") + size + ", " + label + ", ";
        report(speak, what + "MpiCollective (reduce mpi)", median(fast), bytes, copy);
        report(speak, what + "MpiCollective (reduce exact)", median(exact), bytes, copy);
        report(speak, what + "MPI_Allreduce", median(anchor), bytes, copy);
        std::sort(ratio.begin(), ratio.end());
        if (speak)
            std::printf("  ratio %s, %s: reduce mpi at %.0f%% of MPI_Allreduce's speed "
                        "(median of %d rounds, middle half %.0f-%.0f%%, all %.0f-%.0f%%)\n",
                        size, label.c_str(), 100 * ratio[ratio.size() / 2], rounds,
                        100 * ratio[ratio.size() / 4], 100 * ratio[ratio.size() * 3 / 4],
                        100 * ratio.front(), 100 * ratio.back());
    }
    std::uint32_t vote = std::uint32_t(rank);
    for (auto [way, collective] :
         {std::pair{"mpi", c.fast.get()}, std::pair{"exact", c.exact.get()}}) {
        const double agree = timed([&] { collective->agree(vote, alive); }, 2000);
        if (speak)
            std::printf("  %-52s %10.2f us\n",
                        ("agree (one vote), " + label + ", reduce " + way).c_str(), agree * 1e6);
    }
}

} // namespace

int main(int argc, char** argv) {
    bool quick = false, bytes = false;
    std::string label = "mpi";
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--quick")
            quick = true;
        else if (a == "--bytes")
            bytes = true;
        else
            label = a;
    }
    if (!mpi::startedByMpirun()) {
        std::fprintf(stderr, "mpicollective: run it under mpirun: mpirun -np 2 %s\n", argv[0]);
        return 2;
    }
    const mpi::JobInfo& job = mpi::join();
    const bool speak = job.rank == 0;
    Telemetry t = Telemetry::create(job.size, 1);
    KeepGoing alive(t, job.rank, /*watchPeers=*/true);
    Collectives c = makeCollectives(t, job, bytes ? kBlogFloats : 25'000'000, alive);
    int rc = 0;
    if (bytes) {
        rc = countBytes(job, c, alive);
    } else {
        if (speak)
            std::printf("mpi collective (%s): %u ranks, median of timed rounds\n", label.c_str(),
                        job.size);
        timeAll(speak, label, c, alive, quick);
    }
    c.exact->close();
    c.fast->close();
    mpi::leave(true);
    return rc;
}
