#pragma once
// Run: the one facade between a monitor (CLI, GUI, tests) and the engine.
//
// Threading: construct and control (start/pause/resume/stop) from one
// thread, the monitor's; prepare() may run on another thread (the GUI loads
// data off its event loop) as long as nothing else touches the run meanwhile. Training happens on
// the run's own threads; the monitor follows it only through telemetry() (drain the rings on a
// timer) and the query functions, which are safe to call at any time.
#include "config/experimentconfig.h"
#include "data/dataset.h"
#include "data/shareddataset.h"
#include "model/model.h"
#include "store/parameterstore.h"
#include "telemetry/telemetry.h"
#include "util/alignedvector.h"

#include <atomic>
#include <chrono>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace hwl {

struct RunSummary {
    RunState state = RunState::Starting;
    int epochsCompleted = 0;
    std::uint64_t steps = 0;
    std::uint64_t samples = 0; ///< training samples processed by all workers
    double wallSeconds = 0;    ///< launch of the first worker to the end
    /// First worker's first step to the last worker leaving its loop, minus evaluation.
    double trainSeconds = 0;
    double samplesPerSecond = 0;           ///< samples / trainSeconds
    bool evaluated = false;                ///< false when the test set is empty
    double testLoss = 0, testAccuracy = 0; ///< after the last completed epoch
    double trainLoss = 0;                  ///< mean of the workers' last epoch losses
    std::vector<double> startupSeconds;    ///< per worker, launch to first step
    std::uint64_t droppedSamples = 0;      ///< telemetry samples lost to full rings
    std::string failure;                   ///< why the run failed, for the user
    /// Every worker that died, e.g. "worker 2 (pid 4711) killed by SIGKILL after 1234 steps".
    std::vector<std::string> workerFailures;
    /// Per worker, the last divergence: staleness (shared) or distance from the
    /// replica mean (not shared).
    std::vector<double> divergence;
    /// Pitfalls the run detected, explained in plain words.
    std::vector<std::string> explanations;
};

class ForkServer;
struct WorkerPlan;
class ProcessLauncher;

class Run {
public:
    /// Validates the config (InputError listing every issue).
    explicit Run(ExperimentConfig config);
    ~Run(); ///< stops and joins a run still going

    /// Loads the dataset, builds and initialises the model (or loads --init),
    /// and creates the telemetry segment. InputError for bad data, weights or
    /// a model that does not fit the data. Called by start() if needed.
    void prepare();
    /// Launches the workers and returns at once.
    void start();
    void pause();
    void resume();
    /// Asks every worker to stop after its current step; returns at once.
    void stop();
    /// Waits until the run has ended or `timeout` passed; true when ended.
    bool wait(std::chrono::milliseconds timeout = std::chrono::milliseconds::max());
    bool finished() const { return done_.load(std::memory_order_acquire); }

    const ExperimentConfig& config() const { return config_; }
    const Model& model() const { return *model_; }
    const DatasetSplit& data() const { return data_; }
    /// The shared parameters. While workers run, reads race with their updates.
    const float* parameters() const { return params_.data(); }
    DatasetView trainView() const { return trainView_; }
    /// Writes the parameters as NumPy .npz when `file` ends in .npz (any case), else as
    /// safetensors with the run's metadata (model, dataset, epochs
    /// completed). Temp file + rename; InputError when it cannot be written.
    void writeWeights(const std::filesystem::path& file) const;
    Telemetry& telemetry() { return telemetry_; }
    /// A copy of the summary so far (final once finished()).
    RunSummary summary() const;
    /// Warnings for the user gathered while preparing (e.g. fork with threads).
    const std::vector<std::string>& notes() const { return notes_; }

    /// Process modes with the forkserver start method: use this server
    /// (started early, while the process was single-threaded). Without one,
    /// start() starts its own, later than ideal (noted in notes()).
    void setForkServer(std::shared_ptr<ForkServer> server);

private:
    void launchThreads(const WorkerPlan& base);
    void launchProcesses(const WorkerPlan& base);
    void coordinate();
    bool gateReached(std::uint32_t epoch) const;
    bool allWorkersDown() const;
    void superviseWorkers();
    void updateReplicaDistances();
    void finishWorkers();
    /// Waits for every worker, unlinks the segments, writes the summary.
    void endRun();
    void evaluate(std::uint32_t epoch);
    void summarise();

    ExperimentConfig config_;
    DatasetSplit data_;
    DatasetView trainView_;
    std::unique_ptr<Model> model_;
    ParameterStore params_;                ///< the parameters the run trains and exports
    std::vector<ParameterStore> replicas_; ///< not-shared pitfall: one per worker
    AlignedVector<float> initialParams_;   ///< not shared: to prove params_ never changed
    SharedDataset sharedTrain_;            ///< process modes
    Telemetry telemetry_;
    std::mutex updateLock_;
    std::vector<std::thread> workers_;
    std::shared_ptr<ForkServer> forkServer_;
    std::unique_ptr<ProcessLauncher> launcher_;
    std::thread coordinator_;
    std::atomic<bool> done_{false};
    bool prepared_ = false;
    std::vector<std::string> notes_;
    std::vector<std::string> workerFailures_; // coordinator thread only until done_

    mutable std::mutex summaryMutex_; // guards summary_
    RunSummary summary_;
    double evalSeconds_ = 0;
};

} // namespace hwl
