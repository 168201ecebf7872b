#pragma once
// DeviceStrategy: what the GPU modes share. The run's process keeps one
// parameter store and the training data in shared memory, as process
// Hogwild does, and never touches CUDA; one device process (started by the
// start method, see makeDeviceLauncher) initialises CUDA, trains, and
// drives all the run's logical workers (replicas, or groups of thread
// blocks): their status blocks, their sample rings (it is their single
// producer) and the epoch gate. It copies the parameters into the shared
// store at each epoch's end and when it leaves, for evaluation and export.
#include "strategy/hoststrategy.h"
#include "train/keepgoing.h"

#ifdef HWL_HAVE_CUDA
#include "cuda/cuda.h"
#endif

#include <vector>

namespace hwl {

/// The device process's side of the telemetry, for every logical worker.
class DeviceWorkers {
public:
    DeviceWorkers(const WorkerEnvironment& env);
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
    void fail(const std::string& why) { keepGoing_.fail(why); }
    bool failed() const { return keepGoing_.reason() == KeepGoing::Reason::Failed; }
    /// Every worker's final state: Finished, or Stopped (Failed stays).
    void leave(bool finished);
    Telemetry& telemetry() { return telemetry_; }

private:
    Telemetry& telemetry_;
    KeepGoing keepGoing_;
    std::vector<double> lastSample_;
};

class DeviceStrategy : public HostStrategy {
public:
    using HostStrategy::HostStrategy;
    WorkerSetup setupWorker(const WorkerEnvironment& env, std::uint32_t rank) const override;
    /// The device process: initialises CUDA, runs train(), reports a
    /// failure through worker 0.
    void trainWorker(const WorkerEnvironment& env, std::uint32_t rank) const override;

protected:
    /// The mode's training, in the device process. Returns true when every
    /// epoch ran; throws with CUDA's words on failure.
    virtual bool train(const WorkerEnvironment& env, DeviceWorkers& workers) const = 0;
};

#ifdef HWL_HAVE_CUDA
/// The training rows as the CUDA backend takes them.
cuda::HostData hostData(const DatasetView& v);
cuda::Sgd deviceSgd(const ExperimentConfig& c);
/// Rows of one epoch as 32-bit indices (the device's).
std::vector<std::int32_t> rowsOf(const EpochPlan& plan, int epoch, std::uint32_t rank);
#endif

/// Why the GPU modes of `config` cannot run on this machine (no device, too
/// few GPUs), or empty. Probes the devices in a child process (once).
std::string deviceShortfall(const ExperimentConfig& config);

} // namespace hwl
