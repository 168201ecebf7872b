#pragma once
// UpdateRule: how one worker's step reaches the parameters, as an object the
// worker loop calls (never a branch in it). One object per worker, used by
// its thread only.
//   hogwild:  straight into the shared parameters, no lock (the intended
//             race, optim/hogwild.h), measuring staleness now and then;
//   locked:   the same update under one mutex all workers share;
//   private:  into the worker's own copy (the unshared-replicas pitfall);
//             its divergence is the distance from the replicas' mean, which
//             the coordinator measures.
#include "backend/backend.h"
#include "telemetry/telemetry.h"
#include "util/alignedvector.h"

#include <cstdint>
#include <memory>
#include <mutex>

namespace hwl {

class UpdateRule {
public:
    virtual ~UpdateRule() = default;
    /// Before step `step` (0-based) computes its gradient from `params`.
    virtual void beforeStep(const float* /*params*/, std::uint64_t /*step*/) {}
    /// Applies the kernel's last gradient to `params`.
    virtual void apply(StepKernel& kernel, float* params) = 0;
    /// The worker's divergence as its mode defines it, for telemetry (L2).
    virtual float divergence() const { return 0.0f; }
};

/// How often (in steps) a worker measures staleness: often enough for a
/// live chart, rarely enough to cost well under 1% of throughput.
std::uint64_t stalenessInterval(std::int64_t parameterCount);

/// Hogwild. `measureStaleness` (more than one worker): every
/// stalenessInterval() steps, the L2 distance between the parameters the
/// step read and the shared ones when it writes.
std::unique_ptr<UpdateRule> makeHogwildUpdate(std::int64_t parameterCount, bool measureStaleness);
/// One mutex around each update (`lock` outlives the rule).
std::unique_ptr<UpdateRule> makeLockedUpdate(std::mutex& lock, std::int64_t parameterCount,
                                             bool measureStaleness);
/// A private copy; the divergence is read from `status` (the coordinator
/// writes WorkerStatus::replicaDistance).
std::unique_ptr<UpdateRule> makePrivateUpdate(const WorkerStatus& status);

} // namespace hwl
