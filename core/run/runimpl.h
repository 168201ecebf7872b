#pragma once
// Run::Impl: the run's state behind the facade, shared by run.cpp (prepare,
// start, control), coordinator.cpp (the epoch gate, supervision, teardown)
// and summary.cpp (evaluation, the summary, export).
//
// Threading: prepare() and start() on the monitor's thread; everything from
// coordinate() on runs on the coordinator thread until `done` is set; the
// summary is guarded by summaryMutex.
#include "backend/backend.h"
#include "data/dataset.h"
#include "launch/launcher.h"
#include "model/model.h"
#include "run/run.h"
#include "strategy/strategy.h"
#include "telemetry/telemetry.h"

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

namespace hwl {

class ForkServer;

/// The fork server startForkServer() started for this process, or null.
std::shared_ptr<ForkServer> processForkServer();

struct Run::Impl {
    explicit Impl(ExperimentConfig c) : config(std::move(c)) {}

    void prepare(const std::function<bool()>& stopWhen);
    void start();
    std::unique_ptr<Launcher> chooseLauncher();
    void launchWorkers();
    void coordinate();
    /// The gate every live worker of this machine waits at or beyond, the
    /// smallest such, when each is past `released`; else 0.
    std::uint32_t gateReached(std::uint32_t released) const;
    bool allWorkersDown() const;
    void superviseWorkers();
    /// A process that stood for the whole job (mpirun) ended.
    void superviseJobExit(const Launcher::Exit& exit);
    void finishWorkers();
    /// Waits for every worker, unlinks the segments, writes the summary.
    void endRun();
    /// The test set at `gate` (gates::at), every worker waiting there.
    void evaluate(std::uint32_t gate);
    void summarise();
    void trainingWindow(RunSummary& s) const;
    /// Training seconds from the first worker's first step to `ns`, less
    /// the evaluations so far.
    double trainedSecondsAt(std::int64_t ns) const;
    /// Records in `target` the best figures and, the first time `eval`
    /// reaches it, where (summaryMutex held).
    static void noteTarget(TargetResult& target, const Sample& eval, const EvalResult& figures,
                           double trainedSeconds, double wallSeconds, bool atEpochEnd);
    /// The target was reached and the run stops there (no --train-past-target).
    bool stopsAtTarget() const;
    /// Sets the summary's target; refuses one without a test set, or met by
    /// the weights the run starts from.
    void checkTarget(const float* params);
    /// Refuses --eval-every without a test set, or with more evaluations in
    /// an epoch than the gates count (telemetry.h's gates).
    void checkEvalEvery() const;
    /// The initial parameters: seeded, --init's, or --resume's (with the
    /// workers' resume points).
    void initialParameters(float* initial);
    /// The loss the run starts from and the test set's chance accuracy, for
    /// judgeLearning (summary.cpp).
    void measureStart(const float* params);

    ExperimentConfig config;
    DatasetSplit data;
    std::unique_ptr<Model> model;
    /// The mode's Host backend (Strategy::backend), once the strategy exists.
    const Backend* backend = nullptr;
    std::unique_ptr<Strategy> strategy;
    Telemetry telemetry;
    TelemetryReader reader{telemetry};
    std::unique_ptr<RunResources> resources;
    std::unique_ptr<Launcher> launcher;
    std::shared_ptr<ForkServer> forkServer;
    std::thread coordinator;
    std::atomic<bool> done{false};
    /// The coordinator thread runs (until `done`); false for a run that was
    /// never started, or whose start failed before it.
    std::atomic<bool> started{false};
    std::atomic<bool> prepared{false};
    std::atomic<std::uint32_t> pace{0}; ///< Run::setPace(), kept for the telemetry
    std::int64_t traceSliceNs = 0;      ///< Run::setTrace(), set in the telemetry at start
    /// stop() came before the run was prepared: prepare() throws Cancelled
    /// at its next check (the loaders poll it a chunk at a time).
    std::atomic<bool> stopBeforeStart{false};
    RunInfo info;
    std::vector<std::string> notes;
    /// Each worker's resume point for modes that take resume (else empty):
    /// where it starts, and after the run where it stood.
    std::vector<WorkerResume> resume;
    /// --optimizer-state shared with --resume: the state the run's store starts with.
    SharedStateResume sharedResume;
    std::vector<std::string> workerFailures; ///< coordinator thread only until done
    /// Workers killed because they had not stopped 10 s after being told
    /// to: stopped, not failed (coordinator thread only until done).
    bool killedStuck = false;
    std::vector<std::string> stuckWorkers;

    mutable std::mutex summaryMutex; ///< guards summary
    RunSummary summary;
    double evalSeconds = 0;
};

} // namespace hwl
