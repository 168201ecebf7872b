#pragma once
// Run: the one facade between a monitor (the CLI, the window, a test) and the
// engine. It validates the experiment, loads the data, builds the model,
// lets the mode's strategy allocate the parameters and start the workers,
// coordinates epochs and evaluation, and summarises. Part of the engine's
// public API: it hands out plain values and a read-only telemetry reader,
// never shared memory, stores or launchers.
//
// Threading: construct and control (start/pause/resume/stop) from one
// thread, the monitor's; prepare() may run on another thread (the GUI loads
// data off its event loop) as long as nothing else touches the run
// meanwhile. Training happens on the run's own threads or processes; the
// monitor follows it through telemetry() (drain it on a timer) and the query
// functions, which are safe to call at any time.
#include "config/experimentconfig.h"
#include "data/normalize.h"
#include "strategy/catalog.h"
#include "telemetry/runsummary.h"
#include "telemetry/sample.h"
#include "telemetry/telemetryreader.h"

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace hwl {

/// What a prepared run is about (after prepare()).
struct RunInfo {
    std::string mode; ///< describeMode(), e.g. processes (fork, NOT shared)
    std::string trainDescription, testDescription;
    std::int64_t trainRows = 0, testRows = 0;
    std::int64_t parameters = 0;       ///< floats in the model's flat buffer
    std::uint64_t samplesPerEpoch = 0; ///< training samples of all workers in one epoch
    bool processes = false;            ///< workers are processes (else threads)
    DivergenceKind divergence = DivergenceKind::None;
    Normalization normalization; ///< --normalize's statistics, as applied to the data
};

class Run {
public:
    /// Validates the config (InputError listing every issue).
    explicit Run(ExperimentConfig config);
    ~Run(); ///< stops and joins a run still going
    Run(const Run&) = delete;
    Run& operator=(const Run&) = delete;

    /// Loads the dataset, builds and initialises the model (or loads --init),
    /// lets the strategy allocate its stores, and creates the telemetry
    /// segment. InputError for bad data, weights or a model that does not fit
    /// the data; RunError when there is no room (e.g. /dev/shm); Cancelled
    /// when stop() is called meanwhile (from another thread) or `stopWhen`
    /// returns true: the loaders poll them a chunk at a time, so a large
    /// file stops loading within a fraction of a second. Called by start()
    /// if needed.
    void prepare(const std::function<bool()>& stopWhen = {});
    /// Launches the workers and returns at once.
    void start();
    void pause();
    void resume();
    /// At most `stepsPerSecond` steps per second per worker from now on (0:
    /// full speed), to watch a run: only the timing changes, not the
    /// arithmetic. Kept for start() when called before it.
    void setPace(std::uint32_t stepsPerSecond);
    /// Before start(): each worker adds up where its time goes (compute,
    /// wait, communicate) in slices of kTraceSliceNs, and the coordinator
    /// records its evaluations, for telemetry().drainTrace(); off (the
    /// default): nothing is measured for it.
    void setTrace(bool on);
    /// The slice length of a traced run (MPI ranks beyond 0 always slice
    /// their time so, for rank 0's trace): fine enough to see a lock or a
    /// barrier come and go, coarse enough that a minute of 4 workers stays
    /// near 10 MB.
    static constexpr std::int64_t kTraceSliceNs = 5'000'000;
    /// While paused: every worker takes one more step, then pauses again.
    /// Ignored where canStep() is false.
    void step();
    /// Whether step() works for this run: not for MPI ranks (each has a
    /// telemetry segment of its own, on its host).
    bool canStep() const;
    /// Asks every worker to stop after its current step; returns at once.
    /// Before the run is prepared: prepare() stops loading (Cancelled).
    void stop();
    /// Waits until the run has ended or `timeout` passed; true when ended
    /// (at once for a run that was never started, or whose start failed).
    bool wait(std::chrono::milliseconds timeout = std::chrono::milliseconds::max());
    bool finished() const;

    const ExperimentConfig& config() const;
    /// What the run is about; valid after prepare().
    const RunInfo& info() const;
    /// Whether there are parameters to export (after prepare()).
    bool hasParameters() const;
    /// A copy of the parameters the run evaluates and exports. While workers
    /// run, the copy races with their updates.
    std::vector<float> parameters() const;
    /// Writes the parameters as NumPy .npz when `file` ends in .npz (any
    /// case), the whole network (graph and weights) as ONNX when it ends in
    /// .onnx (io/onnxexport.h), else as safetensors; safetensors and ONNX
    /// carry the run's metadata (model, dataset, epochs completed). Temp
    /// file + rename; InputError when it cannot be written.
    void writeWeights(const std::filesystem::path& file) const;
    /// Whether the mode keeps an optimizer state to save (serial and the
    /// thread Hogwild modes: strategy/catalog.h's Resume), after prepare().
    bool savesOptimizerState() const;
    /// Once the run has ended: each worker's momentum buffers and place in
    /// the data as optimizer.safetensors (io/optimizerstate.h), for
    /// --resume. InputError when it cannot be written.
    void writeOptimizerState(const std::filesystem::path& file) const;
    /// The run's telemetry, read-only (one consumer: drain it from one thread).
    TelemetryReader& telemetry();
    /// A copy of the summary so far (final once finished()).
    RunSummary summary() const;
    /// Warnings for the user gathered while preparing (e.g. fork with threads).
    const std::vector<std::string>& notes() const;

    struct Impl;

private:
    std::unique_ptr<Impl> impl_;
};

} // namespace hwl
