#pragma once
// What crosses from a run's telemetry to a monitor, as plain values: the
// run's and a worker's state, and one telemetry record (Sample). Part of the
// engine's public API.
#include <cstdint>

namespace hwl {

/// Where the run as a whole is (TelemetryHeader::runState).
enum class RunState : std::uint32_t { Starting, Running, Paused, Finished, Stopped, Failed };
/// Where one worker is (WorkerStatus::state).
enum class WorkerState : std::uint32_t { Starting, Running, Paused, Finished, Stopped, Failed };

const char* toString(RunState s);
const char* toString(WorkerState s);

/// One telemetry record. `kind` says what it is:
///   Step:     a periodic sample of a worker's progress (loss = that step's batch loss)
///   EpochEnd: a worker finished an epoch (loss = its mean batch loss in the epoch)
///   Eval:     the coordinator evaluated the test set (worker = -1; loss, accuracy;
///             divergence: in replica modes the largest replica distance, measured
///             while every worker waited at the epoch's end)
struct Sample {
    enum Kind : std::uint32_t { Step = 0, EpochEnd = 1, Eval = 2 };
    std::uint32_t kind = Step;
    std::int32_t worker = 0;
    std::uint32_t epoch = 0; ///< 1-based epoch the sample belongs to
    std::uint32_t reserved = 0;
    std::uint64_t step = 0;    ///< the worker's steps so far (Eval: all workers')
    std::uint64_t samples = 0; ///< training samples the worker has seen (Eval: all workers')
    double time = 0;           ///< seconds since the run started
    float loss = 0;
    float divergence = 0; ///< staleness (shared modes) or replica distance, L2
    float accuracy = 0;   ///< Eval only, in [0, 1]
    float commShare = 0;  ///< share of the time since the last sample spent in collectives
};

} // namespace hwl
