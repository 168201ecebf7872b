#pragma once
// UpdateRule: how one worker's step reaches the parameters, as an object the
// worker loop calls (never a branch in it). One object per worker, used by
// its thread only.
//   hogwild:  straight into the shared parameters, no lock (the intended
//             race, optim/hogwild.h), measuring staleness now and then;
//   locked:   the same update under one mutex all workers share;
//   private:  into the worker's own copy (the unshared-replicas pitfall);
//             its divergence is the distance from the replicas' mean, which
//             the coordinator measures;
//   allreduce: data-parallel replicas average their gradients (or, every K
//             steps, their parameters) through a Collective and agree on
//             pause and stop at the same step (collective/allreduceupdate.h).
#include "backend/backend.h"
#include "telemetry/telemetry.h"
#include "util/alignedvector.h"

#include <cstdint>
#include <memory>
#include <mutex>

namespace hwl {

class KeepGoing;

class UpdateRule {
public:
    virtual ~UpdateRule() = default;
    /// Once, before the first step. False: the worker must not go on (the
    /// reason is in `keepGoing` or in the worker's status block).
    virtual bool start(float* /*params*/, KeepGoing& /*keepGoing*/) { return true; }
    /// Before step `step` (0-based) computes its gradient from `params`.
    virtual void beforeStep(const float* /*params*/, std::uint64_t /*step*/) {}
    /// Applies the kernel's last gradient to `params`. False: the worker
    /// must stop (a collective could not complete: a peer is gone).
    virtual bool apply(StepKernel& kernel, float* params, KeepGoing& keepGoing) = 0;
    /// At the end of each epoch, before the epoch gate.
    virtual bool endEpoch(float* /*params*/, KeepGoing& /*keepGoing*/) { return true; }
    /// Once, when the worker leaves its loop (its state already set). Never throws.
    virtual void finish() {}
    /// The worker's divergence as its mode defines it, for telemetry (L2).
    virtual float divergence() const { return 0.0f; }
    /// Whether the workers agree on pause and stop through this rule, all at
    /// the same step (then the loop acts on agreedCommand() after each step
    /// instead of on the run's command word before it).
    virtual bool agreesCommands() const { return false; }
    virtual RunCommand agreedCommand() const { return RunCommand::Run; }
};

/// --lost-updates: the shared block versions and where the worker publishes
/// its counts. Empty (versions null): no counting.
struct UpdateCounting {
    std::uint32_t* versions = nullptr;
    WorkerStatus* status = nullptr;
};

/// How often (in steps) a worker measures staleness: often enough for a
/// live chart, rarely enough to cost well under 1% of throughput.
std::uint64_t stalenessInterval(std::int64_t parameterCount);
/// Steps from one staleness measurement to the next: at least `every`, more
/// when one measurement (`costNs`: the snapshot and the distance) would take
/// over half a percent of the time steps of `stepNs` take in between.
std::uint64_t nextMeasurementAfter(std::uint64_t every, double costNs, double stepNs);

/// Hogwild. `measureStaleness` (more than one worker): every
/// stalenessInterval() steps, the L2 distance between the parameters the
/// step read and the shared ones when it writes.
/// With `counting`, each update counts its block writes and lost ones.
std::unique_ptr<UpdateRule> makeHogwildUpdate(std::int64_t parameterCount, bool measureStaleness,
                                              UpdateCounting counting = {});
/// One mutex around each update (`lock` outlives the rule).
/// `waitNs`, when given, adds up the time this worker waited for the lock.
std::unique_ptr<UpdateRule> makeLockedUpdate(std::mutex& lock, std::int64_t parameterCount,
                                             bool measureStaleness, UpdateCounting counting = {},
                                             std::atomic<std::int64_t>* waitNs = nullptr);
/// A private copy; the divergence is read from `status` (the coordinator
/// writes WorkerStatus::replicaDistance).
std::unique_ptr<UpdateRule> makePrivateUpdate(const WorkerStatus& status);

} // namespace hwl
