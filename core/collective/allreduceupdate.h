#pragma once
// The data-parallel update rule: the replicas stay copies of one model.
//
//   start:   the collective meets its peers (Collective::open); every rank
//            checks its ParamLayout against rank 0's (and says what
//            differs), then takes rank 0's parameters (a broadcast);
//   sync-every 1: each step averages the gradients over the ranks in
//            buckets (collective/buckets.h), in the same order on every rank,
//            then applies the same SGD step (momentum, weight decay) to its
//            replica, so the replicas stay bit-identical;
//   sync-every K > 1: each replica takes K steps alone (its own momentum
//            buffer, never averaged), then the replicas' parameters are
//            averaged; also at each epoch's end, so the model evaluated and
//            exported is their average (local SGD, model averaging);
//   commands: every step carries each rank's view of the run's command in
//            its collective, and all ranks act on the largest (run < pause
//            < stop) after that same step;
//   divergence: every few steps and at each epoch's end, each rank's L2
//            distance from the replicas' mean, measured through the
//            collective (exactly 0 while they are bit-identical);
//   telemetry: the time spent in collectives and the bytes reduced, in the
//            worker's status block.
#include "collective/buckets.h"
#include "collective/collective.h"
#include "model/paramlayout.h"
#include "telemetry/telemetry.h"
#include "train/updaterule.h"

#include <memory>
#include <vector>

namespace hwl {

struct AllreduceSettings {
    const ParamLayout* layout = nullptr;
    std::vector<Bucket> buckets; ///< reduction order
    int syncEvery = 1;
};

/// Steps between divergence measurements: for sync-every 1, 128 or one per
/// 4096 parameters; else about 4 per averaging period (at most one every 4).
int divergenceInterval(int syncEvery, std::int64_t parameterCount);

std::unique_ptr<UpdateRule> makeAllreduceUpdate(std::unique_ptr<Collective> collective,
                                                AllreduceSettings settings, Telemetry& telemetry,
                                                std::uint32_t rank);

} // namespace hwl
