#pragma once
// DeviceStrategy: what the GPU modes share (the one level between them and
// Strategy). The run's process keeps one parameter store and the training
// data in shared memory, as process Hogwild does (HostTraining, owned), and never touches CUDA; one
// device process (started by the start method, see makeDeviceLauncher) initialises CUDA, trains,
// and drives all the run's logical workers (replicas, or groups of thread blocks): their status
// blocks, their sample rings (it is their single producer) and the epoch gate. It copies the
// parameters into the shared store at each epoch's end and when it leaves, for export; the test set
// (in a segment of its own) is evaluated on the device at each epoch's end,
// and the coordinator reports that result (RunSummary, the Eval samples).
#include "strategy/hostparts.h"
#include "train/keepgoing.h"

#include <atomic>
#include <memory>
#include <optional>
#include <vector>

namespace hwl {

class DeviceTraining;

/// One epoch's evaluation on the device, as the device process publishes it.
struct DeviceEvaluation {
    enum : std::uint32_t { None = 0, Done = 1, Failed = 2 };
    std::atomic<std::uint32_t> ready{None}; ///< Done or Failed once the rest is written (release)
    double lossSum = 0;
    std::int64_t correct = 0, count = 0;
    double seconds = 0; ///< what the evaluation took (not training time)
    /// Data-parallel: seconds the device waited for the epoch's rows before
    /// it could train it, and how many epochs the host dealt at once.
    double rowWaitSeconds = 0;
    std::int32_t dealtAhead = 0;
    char why[256] = {}; ///< Failed: the device's words; the CPU evaluates from then on
};
static_assert(std::atomic<std::uint32_t>::is_always_lock_free, "shared between processes");

/// The device process's side of the telemetry, for every logical worker,
/// and of the device link (the test set, the evaluations).
class DeviceWorkers {
public:
    DeviceWorkers(const WorkerEnvironment& env);
    /// The test set (rows 0 when the run has none).
    DatasetView test() const { return test_.view(); }
    /// Publishes epoch `epoch`'s evaluation, before the epoch gate.
    void evaluated(int epoch, double lossSum, std::int64_t correct, std::int64_t count,
                   double seconds);
    /// The device waited `seconds` for epoch `epoch`'s rows, which the host
    /// dealt `ahead` epochs at a time (strategy/epochdealer.h).
    void waitedForRows(int epoch, double seconds, int ahead);
    /// The device could not evaluate epoch `epoch` (nor will it later).
    void evaluationFailed(int epoch, const std::string& why);
    std::uint32_t count() const { return telemetry_.workerCount(); }
    /// Worker r's progress after a step; a sample at most every 2 ms each.
    void stepped(std::uint32_t r, int epoch, std::uint64_t steps, std::uint64_t samples, float loss,
                 float divergence);
    /// Every worker ended `epoch` with these mean losses; waits at the epoch
    /// gate. False when the run must stop.
    bool endEpoch(int epoch, const std::vector<float>& epochLoss,
                  const std::vector<float>& divergence);
    /// Rank 0's keep-going predicate (blocks while paused, showing every
    /// worker paused); false once the run is stopped.
    bool keepGoing();
    void describe(std::uint32_t r, const std::string& where) { telemetry_.setHost(r, where); }
    /// The learning rate the samples from now on report (the run's --lr at first).
    void setRate(float lr) { lr_ = lr; }
    void fail(const std::string& why) { keepGoing_.fail(why); }
    bool failed() const { return keepGoing_.reason() == KeepGoing::Reason::Failed; }
    /// Every worker's final state: Finished, or Stopped (Failed stays).
    void leave(bool finished);
    Telemetry& telemetry() { return telemetry_; }

private:
    Telemetry& telemetry_;
    KeepGoing keepGoing_;
    std::vector<double> lastSample_;
    float lr_ = 0;
    /// Epoch `epoch`'s slot in the evaluations segment, or null out of range.
    DeviceEvaluation* evaluationSlot(int epoch) const;

    SharedDataset test_;
    SharedSegment evaluations_;
};

class DeviceStrategy : public Strategy {
public:
    DeviceStrategy(const StrategyTraits& traits, ExperimentConfig config)
        : Strategy(traits, std::move(config)), host_(config_) {}
    void prepare(RunResources& run, const float* initial) override;
    WorkerJob job(RunResources& run, std::uint32_t rank) override {
        return host_.job(*this, run, rank, {&host_.stores().run(), linkName(), {}});
    }
    /// Host: the CPU (the run's process never initialises a device);
    /// Worker: the CUDA backend, whose device side trains (the CPU's where
    /// CUDA cannot be had: trainWorker then fails the run with the reason).
    const Backend& backend(BackendRole role) const override;
    WorkerSetup setupWorker(const WorkerEnvironment& env, std::uint32_t rank) const override;
    const float* hostParameters() const override { return host_.parameters(); }
    std::optional<EvalResult> evaluation(std::uint32_t epoch, double& seconds) const override;
    void finish() override;
    /// The device process: initialises CUDA, runs train(), reports a
    /// failure through worker 0.
    void trainWorker(const WorkerEnvironment& env, std::uint32_t rank) const override;

protected:
    /// Where the test set was evaluated, for the summary's remarks.
    void explainEvaluation(RunSummary& summary) const;
    /// A remark on how long the device waited for the host's rows
    /// (DeviceWorkers::waitedForRows), when it was told.
    void explainRowWaits(RunSummary& summary) const;
    /// The mode's training, in the device process, on `device` (the Worker
    /// backend's device side). Returns true when every epoch ran; throws
    /// with the device's words on failure.
    virtual bool train(const WorkerEnvironment& env, const DeviceTraining& device,
                       DeviceWorkers& workers) const = 0;

private:
    /// The device link: the test set's and the evaluations' segments.
    std::string linkName() const;

    HostTraining host_;
    SharedDataset sharedTest_;
    SharedSegment evaluations_;
};

/// The test set's evaluation on the device at each epoch's end, published
/// for the coordinator. Where the device cannot evaluate (no test set, the
/// MLP on sparse rows, no room beside the model, a failure later) it says
/// why once and publishes nothing more: the CPU evaluates from then on.
class DeviceTestEvaluation {
public:
    DeviceTestEvaluation(const DeviceTraining& device, const Model& model, DeviceWorkers& workers);
    ~DeviceTestEvaluation();
    /// Evaluates epoch `epoch` with `deviceParams` (the model's flat buffer
    /// on device 0) and publishes it.
    void evaluate(const float* deviceParams, int epoch);

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
    DeviceWorkers& workers_;
};

/// Rows of one epoch as 32-bit indices (the device's).
std::vector<std::int32_t> rowsOf(const EpochPlan& plan, int epoch, std::uint32_t rank);
/// Ranks 0 .. replicas-1's rows of one epoch as 32-bit indices, from one
/// draw of the epoch's order (EpochPlan::ranksRows).
std::vector<std::vector<std::int32_t>> replicaRows(const EpochPlan& plan, int epoch,
                                                   std::uint32_t replicas);

/// Whether the experiment's model is of `kind`; false when its text is not
/// valid (validate() reports the model itself), for the GPU modes' checks.
bool modelIs(const ExperimentConfig& config, ModelSpec::Kind kind);

/// Refuses a net: layer list (model "net:..."), which the GPU modes do not
/// run, naming its first layer that is not an fc or an activation, or the
/// mlp: or cnn:mnist that spells the same network.
void checkDeviceModel(const ExperimentConfig& config, const std::string& mode,
                      std::vector<ConfigIssue>& issues);

/// The GPU modes' one check of the optimizer: their device kernels apply
/// SGD (gpu-hogwild without momentum), so another --optimizer or
/// --nesterov is refused before the run, naming `mode` and what it takes.
void checkDeviceOptimizer(const ExperimentConfig& config, const std::string& mode,
                          std::vector<ConfigIssue>& issues);

/// The GPUs data-parallel on cuda uses: workers / replicas-per-gpu, at least 1.
int gpusFor(const ExperimentConfig& config);

} // namespace hwl
