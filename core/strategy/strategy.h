#pragma once
// Strategy: one parallel mode's lifecycle, registered by name
// (strategy/registry.h) and described by its traits (strategy/catalog.h).
//
// The Run calls, in order:
//   prepare()        once the data and the model exist: allocate the
//                    parameter stores (through the backend), copy the
//                    initial parameters in, place the training data where the
//                    workers read it;
//   epochPlan()      which rows each worker takes;
//   makeLauncher()   how the workers start, when not as the run decides
//                    by itself (threads, or processes by the start method);
//   job(rank)        what the launcher starts for each worker;
//   measureDivergence() from the coordinator, a few times a second and at
//                    each epoch end (divergence measured across workers);
//   hostParameters() what evaluation and export read;
//   explain()        what the finished run shows (pitfalls, findings), in plain words;
//   finish()         once every worker is gone (segment names removed).
// setupWorker() (through trainWorker()) runs in the process that runs the worker: a thread of the
// run's process, a forked child, or a spawned worker role, which makes a
// fresh strategy from the same experiment and calls only setupWorker().
//
// Threading: the Run's calls come from one thread at a time; setupWorker()
// may run on several worker threads at once and must not change the object.
#include "backend/backend.h"
#include "config/experimentconfig.h"
#include "launch/launcher.h"
#include "strategy/catalog.h"
#include "telemetry/runsummary.h"
#include "train/workerloop.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace hwl {

/// What a strategy's Run-side calls work on; owned by the Run.
struct RunResources {
    const ExperimentConfig& config;
    const Model& model;
    const Backend& backend;
    Telemetry& telemetry;
    DatasetSplit& data;              ///< prepare() may move the training rows to shared memory
    std::vector<std::string>& notes; ///< warnings for the user
    /// One per worker, where modes that take resume start their thread
    /// workers and where those leave their state (else empty).
    std::vector<WorkerResume>& resume;
    /// --optimizer-state shared and --resume: the state the run's store
    /// starts with (null or empty: the optimizer's own start).
    const SharedStateResume* sharedState = nullptr;
};

/// What one worker needs, in whatever process runs it.
struct WorkerEnvironment {
    const ExperimentConfig& config;
    const Model& model;
    const Backend& backend;
    Telemetry& telemetry;
    DatasetView train;
    float* params;          ///< the parameters this worker trains
    std::string collective; ///< data-parallel: the collective's segment name
    /// --lost-updates: the shared store's block versions (else null).
    std::uint32_t* versions = nullptr;
    /// The worker's resume point (WorkerSetup::resume), or null.
    WorkerResume* resume = nullptr;
    /// --optimizer-state shared: the state beside the shared parameters
    /// (else empty: the worker's kernel keeps its own).
    SharedOptimizerState sharedState = {};

    /// The same environment on `other` (a worker's process decides its
    /// backend itself: Strategy::backend(BackendRole::Worker)).
    WorkerEnvironment on(const Backend& other) const {
        return {config, model,      other,    telemetry, train,
                params, collective, versions, resume,    sharedState};
    }
};

/// Where a mode's computing happens: Host, the run's own process (the
/// parameter stores, the test set's evaluation; it forks workers, so it never
/// initialises a device), or Worker, the process or thread that trains.
enum class BackendRole { Host, Worker };

class Strategy {
public:
    Strategy(const StrategyTraits& traits, ExperimentConfig config)
        : traits_(traits), config_(std::move(config)) {}
    virtual ~Strategy() = default;
    const StrategyTraits& traits() const { return traits_; }
    /// The backend this mode computes on in `role`: the CPU's for both roles
    /// unless the mode trains on a device (then its Worker backend is the
    /// device's, and asking for it there initialises the device).
    virtual const Backend& backend(BackendRole role) const;

    virtual void prepare(RunResources& run, const float* initial) = 0;
    virtual std::shared_ptr<const EpochPlan> epochPlan(std::int64_t trainRows) const;
    /// Null: the run picks threads or processes by the start method.
    virtual std::unique_ptr<Launcher> makeLauncher(const RunResources& /*run*/) const {
        return nullptr;
    }
    virtual WorkerJob job(RunResources& run, std::uint32_t rank) = 0;
    virtual WorkerSetup setupWorker(const WorkerEnvironment& env, std::uint32_t rank) const = 0;
    /// Trains worker `rank` in the process that runs it: the worker loop on
    /// setupWorker()'s setup. The GPU modes' one device process drives all
    /// their logical workers here instead.
    virtual void trainWorker(const WorkerEnvironment& env, std::uint32_t rank) const;
    virtual void measureDivergence(Telemetry& /*telemetry*/) {}
    /// The divergence the summary reports for worker `rank`.
    virtual float finalDivergence(const Telemetry& telemetry, std::uint32_t rank) const;
    virtual const float* hostParameters() const = 0;
    /// --optimizer-state shared: a copy of the state beside the run's
    /// parameters, to save once the workers are gone (else empty); called
    /// only then.
    virtual SharedStateResume sharedOptimizerState() const { return {}; }
    /// Epoch `epoch`'s test evaluation when the strategy's workers made it
    /// (the GPU modes evaluate on the device), and the seconds it took
    /// there; empty: the run evaluates hostParameters() on the CPU.
    virtual std::optional<EvalResult> evaluation(std::uint32_t /*epoch*/,
                                                 double& /*seconds*/) const {
        return std::nullopt;
    }
    /// What the finished run shows, in plain words: pitfalls into
    /// summary.explanations, other findings into summary.remarks.
    virtual void explain(RunSummary& /*summary*/) const {}
    virtual void finish() {}

protected:
    const StrategyTraits& traits_;
    const ExperimentConfig config_;
};

/// The optimizer an experiment asks for, decided in this one place: the
/// update rule (optim/optimizerspec.h: its rate the schedule's base, in
/// float; momentum, weight decay, the other rules' hyper-parameters) and the
/// schedule that moves the rate (lr-schedule, lr, epochs, warmup-steps).
/// Every mode, on the CPU and on a device, trains with it (the GPU modes
/// take plain SGD only, and refuse the rest); config must be valid.
struct OptimizerSettings {
    OptimizerSpec spec;
    LrSchedule schedule;
};
OptimizerSettings optimizerOf(const ExperimentConfig& config);

} // namespace hwl
