#pragma once
// What crosses from a run's telemetry to a monitor, as plain values: the
// run's and a worker's state, and one telemetry record (Sample). Part of the
// engine's public API.
#include <atomic>
#include <cstdint>

namespace hwl {

/// Where the run as a whole is (TelemetryHeader::runState).
enum class RunState : std::uint32_t { Starting, Running, Paused, Finished, Stopped, Failed };
/// Where one worker is (WorkerStatus::state).
enum class WorkerState : std::uint32_t { Starting, Running, Paused, Finished, Stopped, Failed };

/// Whether a worker in state `s` has left its loop: it finished, was stopped
/// or failed, and takes no more steps.
constexpr bool hasLeftLoop(WorkerState s) {
    return s == WorkerState::Finished || s == WorkerState::Stopped || s == WorkerState::Failed;
}
/// Whether a raw value (read off the wire) names a WorkerState.
constexpr bool isWorkerState(std::uint32_t raw) {
    return raw <= std::uint32_t(WorkerState::Failed);
}
/// The typed face of a worker's atomic state slot (WorkerStatus::state in
/// the telemetry segment, which holds it as a plain 32-bit value).
inline WorkerState loadState(const std::atomic<std::uint32_t>& slot,
                             std::memory_order order = std::memory_order_acquire) {
    return WorkerState(slot.load(order));
}
inline void storeState(std::atomic<std::uint32_t>& slot, WorkerState s,
                       std::memory_order order = std::memory_order_release) {
    slot.store(std::uint32_t(s), order);
}

const char* stateName(RunState s);
const char* stateName(WorkerState s);

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
    std::uint32_t epoch = 0;   ///< 1-based epoch the sample belongs to
    float lr = 0;              ///< the learning rate of the worker's last step (Step, EpochEnd)
    std::uint64_t step = 0;    ///< the worker's steps so far (Eval: all workers')
    std::uint64_t samples = 0; ///< training samples the worker has seen (Eval: all workers')
    double time = 0;           ///< seconds since the run started
    float loss = 0;
    float divergence = 0; ///< staleness (shared modes) or replica distance, L2
    float accuracy = 0;   ///< Eval only, in [0, 1]
    float commShare = 0;  ///< share of the time since the last sample spent in collectives
};

} // namespace hwl
