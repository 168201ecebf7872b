#pragma once
// The Hogwild update: THE intended data race of this program.
//
// Workers read the shared parameters (forward and backward pass) and write
// them (this update) with no synchronisation at all: updates may interleave
// and a few may be partly lost. That is the algorithm (Recht et al. 2011),
// and it converges when updates are sparse or small. Every racy access to
// the shared buffer outside the model's reads lives in this file, and
// resources/tsan.supp names these functions so ThreadSanitizer reports
// nothing else. Locked mode calls the same functions under a mutex.
#include "optim/gradient.h"
#include "optim/optimizerrule.h"
#include "optim/sgd.h"

#include <cstdint>
#include <vector>

namespace hwl {

namespace hogwild {

/// The SGD rule of optim/sgd.h on the SHARED parameters, while other workers
/// read and write them (the race). Only the gradient's segments are written.
void applyUpdate(float* params, const Gradient<float>& grad, float* velocity,
                 const SgdSettings& sgd, std::uint32_t rank = 0, std::uint32_t workers = 1);
/// Any other rule (optim/optimizerrule.h) on the shared parameters, the same
/// race; `state` is the worker's own.
void applyUpdate(float* params, const Gradient<float>& grad, OptimizerState state,
                 const OptimizerSpec& spec, const StepFactors& f, std::uint32_t rank = 0,
                 std::uint32_t workers = 1);

/// The lost-update counter (--lost-updates): one version per block of
/// kVersionBlock parameters (two cache lines; one row of a 32-wide
/// embedding), advanced atomically after each worker's read-modify-write of
/// the block. An update whose block version moved between its read and its
/// write overlapped another worker's update of the same block: one of the two
/// writes may overwrite the other's. (Blocks of 16 cost twice the atomics on
/// the sparse model for little more precision: bench section 9, docs/benchmarks.md.)
constexpr std::int64_t kVersionBlock = 32;
inline std::int64_t versionBlocks(std::int64_t parameterCount) {
    return (parameterCount + kVersionBlock - 1) / kVersionBlock;
}
/// One worker's running count of block writes and, of them, lost ones.
struct UpdateTally {
    std::uint64_t writes = 0;
    std::uint64_t lost = 0;
};

/// applyUpdate(), block by block, counting into `tally` the block writes
/// and the ones that overlapped another worker's write of the same block
/// (`versions`: versionBlocks() counters every worker shares).
void applyCountedUpdate(float* params, std::uint32_t* versions, const Gradient<float>& grad,
                        float* velocity, const SgdSettings& sgd, UpdateTally& tally,
                        std::uint32_t rank = 0, std::uint32_t workers = 1);
/// The same, block by block, for any other rule.
void applyCountedUpdate(float* params, std::uint32_t* versions, const Gradient<float>& grad,
                        OptimizerState state, const OptimizerSpec& spec, const StepFactors& f,
                        UpdateTally& tally, std::uint32_t rank = 0, std::uint32_t workers = 1);

/// --optimizer-state shared: the number of the update a worker is about to
/// make (1 for the run's first), from the step count all workers share. An
/// atomic add, not the racy update the buffers get: no worker's step is
/// lost, so after the run the count is every worker's updates together.
std::uint64_t claimStep(std::uint64_t* steps);

/// Copies params[0..count) into `out` (a racy read of the shared buffer).
void snapshot(const float* params, std::int64_t count, float* out);

/// L2 distance between `before` and the shared params over the gradient's
/// segments (a racy read): how much other workers changed under this one.
double staleness(const float* params, const float* before, const Gradient<float>& grad);

/// Replica modes: for each replica, the L2 distance of its parameters from
/// the mean of all replicas (racy reads of buffers their workers are writing).
/// `out` gets replicas.size() values.
void replicaDistances(const std::vector<const float*>& replicas, std::int64_t count,
                      std::vector<double>& out);

} // namespace hogwild
} // namespace hwl
