#pragma once
// Dropout's random draws: the one definition that the CPU kernels
// (backend/cpu/netkernel.cpp, the worker loop, the CPU backend) and the CUDA
// kernels (core/cuda/cnnkernels.cuh) both take, so that a replica on the GPU
// drops what a CPU worker of the same rank drops for the same batch. It fixes
// three things: whose stream a batch draws from (its epoch, its place in the
// epoch, the worker's rank, the run's seed), each draw's factor, and the
// ORDER in which a training step takes its draws. tests/tst_devicemath holds
// the CPU kernel's masks against drawStep() at batch sizes that are and are
// not multiples of the kernel's group, so a change to the CPU's grouping or
// order fails there, on every machine, not on a GPU months later.
// Plain C++ without nvcc.
#include "util/hostdevice.h"
#include "util/xoshiro.h"

#include <cstdint>

namespace hwl::dropout {

/// A batch's key: its epoch and its place (the offset of its first row) in
/// the worker's order of the epoch, so a resumed run draws what an
/// uninterrupted one would.
HWL_HD std::uint64_t batchKey(std::uint64_t epoch, std::uint64_t place) {
    return xoshiro::derive(epoch, place);
}

/// The key of the batch `key` for the worker (or replica) of rank `rank`.
HWL_HD std::uint64_t rankKey(std::uint64_t key, std::uint64_t rank) {
    return xoshiro::derive(key, rank + 1);
}

/// The seed of the stream a step draws from: the run's dropout seed
/// (model/modelspec.h) with the rank's key.
HWL_HD std::uint64_t streamSeed(std::uint64_t seed, std::uint64_t rankKey) {
    return xoshiro::derive(seed, rankKey);
}

/// All three at once: the stream of the batch at `place` of `epoch` for the
/// rank `rank` (what a replica on the GPU is seeded with).
HWL_HD std::uint64_t stepSeed(std::uint64_t seed, std::uint64_t epoch, std::uint64_t place,
                              std::uint64_t rank) {
    return streamSeed(seed, rankKey(batchKey(epoch, place), rank));
}

/// What survives: 1 / (1 - p), in the precision of the activations.
template <class T>
HWL_HD T keepFactor(double p) {
    return T(1) / T(1 - p);
}

/// One factor from one uniform draw u in [0, 1): 0 with probability p, else
/// `keep` (PyTorch's dropout scales what it keeps by 1 / (1 - p)).
template <class T>
HWL_HD T factor(double u, double p, T keep) {
    return u < p ? T(0) : keep;
}

/// `count` factors drawn one after the other from `state`.
template <class T>
HWL_HD void drawFactors(std::uint64_t state[4], double p, std::int64_t count, T* out) {
    const T keep = keepFactor<T>(p);
    for (std::int64_t j = 0; j < count; ++j)
        out[j] = factor(xoshiro::uniform(state), p, keep);
}

/// A training step's draws in the order the CPU kernel takes them: the n
/// rows in groups of `group` rows (the last one shorter; group <= 0 or >= n:
/// one group), and within a group each dropout layer l in turn, its factors
/// for the group's rows one row after the other (width[l] a row). out[l]
/// receives layer l's factors of all n rows, row-major (n x width[l]),
/// whatever the grouping: only the order of the draws depends on it.
template <class T>
HWL_HD void drawStep(std::uint64_t state[4], const double* p, int layers, const std::int64_t* width,
                     std::int64_t n, std::int64_t group, T* const* out) {
    if (group <= 0 || group > n)
        group = n;
    for (std::int64_t first = 0; first < n; first += group) {
        const std::int64_t m = n - first < group ? n - first : group;
        for (int l = 0; l < layers; ++l)
            drawFactors(state, p[l], m * width[l], out[l] + first * width[l]);
    }
}

} // namespace hwl::dropout
