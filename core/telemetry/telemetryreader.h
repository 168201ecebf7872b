#pragma once
// TelemetryReader: how a monitor (the CLI, the window, a test) follows a run.
// It drains the run's sample rings and copies the workers' status blocks
// into plain values; it cannot control the run and hands out no shared
// memory or atomics. Part of the engine's public API.
//
// Threading: one reader per run, used from one thread at a time (it is the
// rings' single consumer). Snapshots are consistent per field, not across
// fields: a worker may take a step between two loads.
#include "telemetry/sample.h"
#include "telemetry/trace.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace hwl {

class Telemetry;

/// One worker's status block, copied.
struct WorkerSnapshot {
    std::uint32_t rank = 0;
    std::int64_t pid = 0;       ///< the process running the worker (0 before it started)
    std::uint64_t threadId = 0; ///< its Linux thread id
    WorkerState state = WorkerState::Starting;
    std::string failure; ///< why it failed, when it did
    std::string host;    ///< MPI ranks: the host it runs on; empty otherwise
    std::uint64_t steps = 0;
    std::uint64_t samples = 0;        ///< training samples it has seen
    std::uint32_t epochs = 0;         ///< epochs it completed
    float lastLoss = 0;               ///< the last step's batch loss
    float lastDivergence = 0;         ///< as the mode's strategy defines it
    float lastEpochLoss = 0;          ///< mean batch loss of its last full epoch
    double launchSeconds = -1;        ///< run start to its launch; -1 before it
    double startupSeconds = -1;       ///< launch to its first step; -1 before it
    double finishSeconds = -1;        ///< run start to leaving its training loop; -1 before
    std::uint64_t droppedSamples = 0; ///< samples its full ring dropped
    double commSeconds = 0;           ///< data-parallel: time in collectives
    std::uint64_t bytesReduced = 0;   ///< data-parallel: bytes it sent into reductions
    std::uint64_t updateWrites = 0;   ///< gpu-hogwild: parameter writes its blocks made
    std::uint64_t lostUpdates = 0;    ///< gpu-hogwild: of those, overwritten by another block
};

class TelemetryReader {
public:
    explicit TelemetryReader(Telemetry& telemetry) : telemetry_(&telemetry) {}

    std::uint32_t workerCount() const;
    RunState runState() const;
    /// Seconds since the run started.
    double elapsed() const;
    WorkerSnapshot worker(std::uint32_t rank) const;
    std::vector<WorkerSnapshot> workers() const;
    /// Training samples every worker has seen so far.
    std::uint64_t samplesSoFar() const;

    /// Calls `onSample` for every sample the workers and the evaluation have
    /// published since the last call, in ring order per worker; returns how
    /// many.
    std::size_t drain(const std::function<void(const Sample&)>& onSample);

    /// --trace (Run::setTrace): the slice length the workers add their time
    /// up in, in ns; 0 when the run is not traced.
    std::int64_t traceSliceNs() const;
    /// The run's start on the monotonic clock, in ns (the trace's origin).
    std::int64_t startNs() const;
    /// Calls `onSlice(rank, slice)` for each worker's slices and `onSpan` for
    /// the coordinator's spans published since the last call; returns how many.
    std::size_t drainTrace(const std::function<void(std::uint32_t, const TraceSlice&)>& onSlice,
                           const std::function<void(const TraceSpan&)>& onSpan);
    /// Slices and spans lost to full rings (a monitor that did not drain).
    std::uint64_t droppedTrace() const;

private:
    Telemetry* telemetry_;
};

} // namespace hwl
