#pragma once
// The step loop every worker runs, whatever started it (a thread, a forked
// or spawned process): sample a batch -> loss and gradient (the backend's
// kernel) -> update (the strategy's rule) -> telemetry. Workers never throw
// and never wait on the monitor; they report through their WorkerStatus
// block and sample ring, and every wait polls their KeepGoing predicate.
#include "backend/backend.h"
#include "optim/lrschedule.h"
#include "optim/resumepoint.h"
#include "telemetry/telemetry.h"
#include "train/epochplan.h"
#include "train/updaterule.h"

#include <cstdint>
#include <memory>

namespace hwl {

/// Everything one worker runs with, built by its mode's strategy in the
/// process that runs it (Strategy::setupWorker).
struct WorkerSetup {
    std::uint32_t rank = 0;
    int epochs = 1;
    int batch = 32;
    Telemetry* telemetry = nullptr;
    float* params = nullptr; ///< the parameters this worker trains (shared or its own)
    std::unique_ptr<StepKernel> kernel;
    std::unique_ptr<UpdateRule> rule;
    std::shared_ptr<const EpochPlan> plan;
    LrSchedule schedule;     ///< the rate of each step (constant(): the kernel's own throughout)
    int accumulate = 1;      ///< batches per update (their mean gradient)
    bool watchPeers = false; ///< a failed peer stops this worker (KeepGoing)
    /// Non-null: where the worker starts (its position and momentum; zero:
    /// the beginning), and where it leaves both when it leaves its loop.
    WorkerResume* resume = nullptr;
};

/// Runs all epochs for one worker. Returns when done, stopped, or failed;
/// the worker's final state (Finished, Stopped, Failed) is in its status block.
void runWorker(WorkerSetup& setup);

/// The exit code of a worker process after runWorker: 1 when it failed, else 0.
int workerExitCode(const Telemetry& telemetry, std::uint32_t rank);

} // namespace hwl
