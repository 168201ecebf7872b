#pragma once
// Telemetry: one shared-memory segment per run, the only channel between
// workers (threads or processes) and the monitor (CLI or GUI).
//
// Layout: a TelemetryHeader (magic, version, run control and state, the
// epoch gate), an evaluation ring written by the coordinator, then per
// worker a WorkerStatus block and a single-producer / single-consumer ring
// of Samples. Producers never wait: a full ring drops the sample and counts
// it. Everything shared is a std::atomic of a lock-free type, so the layout
// works across processes (address-free atomics) and is race-free under
// ThreadSanitizer.
#include "store/sharedsegment.h"
#include "telemetry/sample.h"
#include "telemetry/trace.h"
#include "util/limits.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>

namespace hwl {

/// What the controller asks of the workers (TelemetryHeader::command).
enum class RunCommand : std::uint32_t { Run = 0, Pause = 1, Stop = 2 };
/// Single-producer single-consumer ring of Samples in shared memory.
struct SampleRing {
    static constexpr std::uint32_t kCapacity = 2048;
    alignas(64) std::atomic<std::uint64_t> head{0}; ///< written by the producer
    alignas(64) std::atomic<std::uint64_t> tail{0}; ///< written by the consumer
    std::atomic<std::uint64_t> dropped{0};          ///< samples lost to a full ring
    Sample entries[kCapacity];                      // (not "slots": a Qt keyword)

    /// Producer: appends or, when full, drops and counts. Never waits.
    bool push(const Sample& s);
    /// Consumer: calls fn for each available sample in order; returns the count.
    std::size_t drain(const std::function<void(const Sample&)>& fn);
};

struct alignas(64) WorkerStatus {
    std::atomic<std::uint32_t> state{std::uint32_t(WorkerState::Starting)};
    std::atomic<std::int32_t> pid{0};
    std::atomic<std::uint64_t> threadId{0}; ///< Linux tid
    std::atomic<std::uint64_t> steps{0};
    std::atomic<std::uint64_t> samples{0};
    std::atomic<std::uint32_t> epoch{0}; ///< epochs completed
    /// The last evaluation gate the worker arrived at (gates::at); it waits
    /// there until TelemetryHeader::released reaches it.
    std::atomic<std::uint32_t> gate{0};
    std::atomic<float> lastLoss{0};
    std::atomic<float> lastDivergence{0};
    std::atomic<float> lastEpochLoss{0}; ///< mean batch loss of the last full epoch
    /// Replica modes: L2 distance of this worker's parameters from the mean of
    /// all replicas, written by the coordinator (the worker copies it into its samples).
    std::atomic<float> replicaDistance{0};
    std::atomic<std::int64_t> launchNs{0};   ///< monotonic clock when launched
    std::atomic<std::int64_t> startupNs{-1}; ///< launch to first step; -1 before it
    /// Monotonic clock when the worker left its training loop (finished,
    /// stopped or failed); -1 while it trains or if it died without leaving.
    std::atomic<std::int64_t> finishNs{-1};
    /// Data-parallel modes: time spent in collectives, and the bytes of
    /// gradients and parameters this worker sent into reductions.
    std::atomic<std::int64_t> commNs{0};
    std::atomic<std::uint64_t> bytesReduced{0};
    /// Of commNs, the time spent waiting for peers (the collective's barriers).
    std::atomic<std::int64_t> commWaitNs{0};
    /// Time spent waiting for the lock (threads-locked; with --trace). The
    /// epoch gate and the pace are the worker's trace's own kinds.
    std::atomic<std::int64_t> waitNs{0};
    /// The lost-update counter (gpu-hogwild, and --lost-updates on the CPU):
    /// parameter writes this worker (group of blocks) made, and how many of
    /// them overlapped another one's write of the same parameters (lost).
    std::atomic<std::uint64_t> updateWrites{0};
    std::atomic<std::uint64_t> lostUpdates{0};
    /// Set once, before state becomes Failed (release), read after (acquire).
    char failure[512] = {};
    /// MPI ranks: the host it runs on (empty for workers of this machine's
    /// run). Written once: the bytes, then hostLength (release).
    char host[64] = {};
    std::atomic<std::uint32_t> hostLength{0};
    SampleRing ring;
    SliceRing trace; ///< with TelemetryHeader::traceSliceNs: where its time went
};

struct alignas(64) TelemetryHeader {
    static constexpr std::uint64_t kMagic = 0x424C444C57474F48ull; // "HOGWLDLB"
    static constexpr std::uint32_t kVersion = 9;
    std::uint64_t magic = 0;
    std::uint32_t version = 0;
    std::uint32_t workerCount = 0;
    std::uint32_t totalEpochs = 0;
    std::int32_t ownerPid = 0;
    std::int64_t startNs = 0; ///< CLOCK_MONOTONIC at run start
    /// 1: workers wait at each epoch end while the test set is evaluated;
    /// 0 (no test set): nothing to evaluate, workers run their epochs freely.
    std::uint32_t epochGate = 1;
    /// With the gate: every this many of a worker's steps inside an epoch,
    /// a gate too (--eval-every); 0: at the epoch's end only.
    std::uint32_t evalEvery = 0;
    alignas(64) std::atomic<std::uint32_t> command{std::uint32_t(RunCommand::Run)};
    std::atomic<std::uint32_t> runState{std::uint32_t(RunState::Starting)};
    /// The pace: at most this many steps per second per worker (0: as fast
    /// as they go). Only the timing changes, never the arithmetic.
    std::atomic<std::uint32_t> pace{0};
    /// Single steps while paused: each increment lets every worker take one
    /// step and pause again (KeepGoing::beforeStep()).
    std::atomic<std::uint32_t> stepGrants{0};
    /// The gates: at each one (an epoch's end, and with evalEvery inside it)
    /// a worker sets its WorkerStatus::gate, adds to `arrivals`, then waits
    /// until `released` reaches that gate (the coordinator evaluates between).
    alignas(64) std::atomic<std::uint32_t> arrivals{0};
    alignas(64) std::atomic<std::uint32_t> released{0};
    SampleRing evalRing;
    /// --trace: the slice length each worker adds its time up in (0: not
    /// traced). Set before the workers start.
    std::int64_t traceSliceNs = 0;
    SpanRing spans; ///< the coordinator's, while traced
};

/// Where the workers wait for an evaluation, as one number that only grows
/// through a run (WorkerStatus::gate, TelemetryHeader::released): epoch e's
/// k-th gate inside it (k = 1, 2, ...: after k * evalEvery of the worker's
/// steps in the epoch), then its end. The coordinator evaluates at the
/// smallest gate every worker has reached, so workers with fewer steps in an
/// epoch (a shorter slice) simply wait at its end.
namespace gates {
constexpr std::uint32_t kPlaceBits = 15;               ///< the low bits: the place in its epoch
constexpr std::uint32_t kEnd = (1u << kPlaceBits) - 1; ///< an epoch's end
/// Gates inside one epoch, at most (the experiment is refused beyond).
constexpr std::uint32_t kMaxInside = kEnd - 1;
constexpr std::uint32_t at(std::uint32_t epoch, std::uint32_t k) {
    return epoch << kPlaceBits | k;
}
constexpr std::uint32_t endOf(std::uint32_t epoch) {
    return at(epoch, kEnd);
}
constexpr std::uint32_t epochOf(std::uint32_t gate) {
    return gate >> kPlaceBits;
}
constexpr bool isEnd(std::uint32_t gate) {
    return (gate & kEnd) == kEnd;
}
static_assert((std::uint64_t(limits::kMaxEpochs) + 1) << kPlaceBits <= (std::uint64_t(1) << 32),
              "every epoch's gates fit in 32 bits");
} // namespace gates

/// Owns (or maps) a run's telemetry segment and gives typed access to it.
class Telemetry {
public:
    /// Creates a fresh segment for `workers` workers (run owner).
    static Telemetry create(std::uint32_t workers, std::uint32_t epochs);
    /// Maps an existing run's segment by name (worker process or GUI).
    static Telemetry open(const std::string& name);

    TelemetryHeader& header() const { return *static_cast<TelemetryHeader*>(segment_.data()); }
    WorkerStatus& worker(std::uint32_t rank) const;
    std::uint32_t workerCount() const { return header().workerCount; }
    const std::string& name() const { return segment_.name(); }
    /// Removes the segment's name (the mapping stays valid for this process).
    void unlink() { segment_.unlink(); }
    /// Seconds since the run started (monotonic clock; same in every process).
    double elapsed() const;
    static std::int64_t nowNs();

    RunCommand command() const {
        return RunCommand(header().command.load(std::memory_order_relaxed));
    }
    /// Sets the command and wakes every waiter (pause, resume, stop).
    void setCommand(RunCommand c);
    RunState runState() const {
        return RunState(header().runState.load(std::memory_order_acquire));
    }
    void setRunState(RunState s);
    /// Sets the pace (steps per second per worker, 0: full speed) and wakes
    /// workers waiting for their next step.
    void setPace(std::uint32_t stepsPerSecond);
    std::uint32_t pace() const { return header().pace.load(std::memory_order_relaxed); }
    /// While paused: every worker takes one more step, then pauses again.
    void grantStep();

    /// Marks `rank` failed with a message (first failure text wins).
    void failWorker(std::uint32_t rank, const std::string& why);
    std::string failureText(std::uint32_t rank) const;
    /// Records the host worker `rank` runs on, once (MPI ranks; at most 63 bytes).
    void setHost(std::uint32_t rank, const std::string& host);
    /// The host setHost() recorded, or empty.
    std::string host(std::uint32_t rank) const;

private:
    SharedSegment segment_;
};

/// Waits while *word == expected, at most timeoutMs (futex; works across
/// processes on shared memory). Spurious returns are allowed: re-check.
void futexWait(std::atomic<std::uint32_t>& word, std::uint32_t expected, int timeoutMs);
void futexWakeAll(std::atomic<std::uint32_t>& word);

} // namespace hwl
