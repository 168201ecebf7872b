// What sharing one parameter vector between two cores costs, apart from
// everything else a Hogwild step does: the engine's SGD pass
// (optim/sgd.h, p -= lr * g) over the blog MLP's 28,426 parameters, timed
//   alone       one thread, its own vector (in its cache after the first pass);
//   ping-pong   two threads on ONE vector, taking turns: every pass finds
//               each line last written by the other core, so it must fetch
//               all 113 KB from there (what a Hogwild step pays at worst
//               when the other worker updated everything since);
//   pull        the same, the pass only reading the vector (the forward
//               pass's first read of lines the other core wrote).
// The ping-pong time less the alone time is the price of moving the vector
// between the cores once; a Hogwild x2 step pays about that (its forward
// pass pulls the lines, its update writes them back) on top of a serial
// step. Threads are pinned to CPUs 0 and 1 when the machine has them.
//
//   build/bench/sharedupdate [--floats N] [--passes N]
#include "optim/sgd.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include <pthread.h>
#include <sched.h>

namespace {

using Clock = std::chrono::steady_clock;

void pin(int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    pthread_setaffinity_np(pthread_self(), sizeof set, &set); // best effort
}

float readPass(const float* p, std::int64_t n) {
    float lanes[16] = {}; // independent sums: one chain would time the adds, not the loads
    std::int64_t i = 0;
    for (; i + 16 <= n; i += 16)
        for (int k = 0; k < 16; ++k)
            lanes[k] += p[i + k];
    for (; i < n; ++i)
        lanes[0] += p[i];
    float s = 0;
    for (float l : lanes)
        s += l;
    return s;
}

/// Seconds per pass of one thread over its own vector.
double alone(std::int64_t n, int passes, bool write) {
    std::vector<float> p(std::size_t(n), 1.0f), g(std::size_t(n), 1e-6f);
    const hwl::SgdSettings sgd{0.01f, 0, 0};
    volatile float sink = 0;
    const auto t0 = Clock::now();
    for (int k = 0; k < passes; ++k) {
        if (write)
            hwl::detail::sgdRange(p.data(), g.data(), nullptr, n, sgd);
        else
            sink = sink + readPass(p.data(), n);
    }
    return std::chrono::duration<double>(Clock::now() - t0).count() / passes;
}

/// Seconds per pass when two pinned threads take turns on one vector.
double pingPong(std::int64_t n, int passes, bool write) {
    std::vector<float> p(std::size_t(n), 1.0f), g(std::size_t(n), 1e-6f);
    const hwl::SgdSettings sgd{0.01f, 0, 0};
    std::atomic<int> turn{0};
    double seconds[2] = {0, 0};
    auto player = [&](int me) {
        pin(me);
        volatile float sink = 0;
        for (int k = 0; k < passes; ++k) {
            while (turn.load(std::memory_order_acquire) != 2 * k + me) {
            }
            const auto t0 = Clock::now();
            if (write || me == 0) // the reader's peer writes, so each read pulls
                hwl::detail::sgdRange(p.data(), g.data(), nullptr, n, sgd);
            else
                sink = sink + readPass(p.data(), n);
            seconds[me] += std::chrono::duration<double>(Clock::now() - t0).count();
            turn.store(2 * k + me + 1, std::memory_order_release);
        }
    };
    std::thread a(player, 0), b(player, 1);
    a.join();
    b.join();
    return seconds[1] / passes;
}

} // namespace

int main(int argc, char** argv) {
    std::int64_t n = 28426; // the blog MLP 100-256-10
    int passes = 20000;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string flag = argv[i];
        if (flag == "--floats")
            n = std::atoll(argv[i + 1]);
        else if (flag == "--passes")
            passes = std::atoi(argv[i + 1]);
    }
    if (n <= 0 || passes <= 0) {
        std::fprintf(stderr, "sharedupdate: --floats and --passes must be positive\n");
        return 2;
    }
    const double kb = double(n) * 4 / 1024;
    const double wAlone = alone(n, passes, true), wPing = pingPong(n, passes, true);
    const double rAlone = alone(n, passes, false), rPing = pingPong(n, passes, false);
    std::printf("sharedupdate: %lld floats (%.0f KB), %d passes, %u CPUs\n",
                static_cast<long long>(n), kb, passes, std::thread::hardware_concurrency());
    std::printf("update pass alone %.2f us, after the other core wrote it %.2f us: moving the "
                "vector costs %.2f us (%.1f GB/s)\n",
                wAlone * 1e6, wPing * 1e6, (wPing - wAlone) * 1e6,
                double(n) * 4 / std::max(1e-12, wPing - wAlone) * 1e-9);
    std::printf("read pass alone %.2f us, after the other core wrote it %.2f us: pulling the "
                "vector costs %.2f us (%.1f GB/s)\n",
                rAlone * 1e6, rPing * 1e6, (rPing - rAlone) * 1e6,
                double(n) * 4 / std::max(1e-12, rPing - rAlone) * 1e-9);
    return 0;
}
