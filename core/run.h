#pragma once
// Run: the one facade between a monitor (CLI, GUI, tests) and the engine.
//
// Threading: construct, prepare and control (start/pause/resume/stop) from
// one thread, the monitor's. Training happens on the run's own threads; the
// monitor follows it only through telemetry() (drain the rings on a timer)
// and the query functions, which are safe to call at any time.
#include "alignedvector.h"
#include "dataset.h"
#include "experimentconfig.h"
#include "model.h"
#include "telemetry.h"

#include <atomic>
#include <chrono>
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
    std::uint64_t samples = 0;     ///< training samples processed by all workers
    double wallSeconds = 0;        ///< launch of the first worker to the end
    double trainSeconds = 0;       ///< wall time minus test evaluation
    double samplesPerSecond = 0;   ///< samples / trainSeconds
    bool evaluated = false;        ///< false when the test set is empty
    double testLoss = 0, testAccuracy = 0; ///< after the last completed epoch
    double trainLoss = 0;          ///< mean of the workers' last epoch losses
    std::vector<double> startupSeconds; ///< per worker, launch to first step
    std::uint64_t droppedSamples = 0;   ///< telemetry samples lost to full rings
    std::string failure;           ///< why the run failed, for the user
};

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
    Telemetry& telemetry() { return telemetry_; }
    /// A copy of the summary so far (final once finished()).
    RunSummary summary() const;
    /// Notes for the user gathered while preparing (e.g. dataset fallback).
    const std::vector<std::string>& notes() const { return notes_; }

private:
    void coordinate();
    void evaluate(std::uint32_t epoch);

    ExperimentConfig config_;
    DatasetSplit data_;
    std::unique_ptr<Model> model_;
    AlignedVector<float> params_;
    Telemetry telemetry_;
    std::mutex updateLock_;
    std::vector<std::thread> workers_;
    std::thread coordinator_;
    std::atomic<bool> done_{false};
    bool prepared_ = false;
    std::vector<std::string> notes_;

    mutable std::mutex summaryMutex_; // guards summary_
    RunSummary summary_;
    double evalSeconds_ = 0;
};

} // namespace hwl
