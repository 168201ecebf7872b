#pragma once
// Where each worker's time goes, for --trace (io/tracefile.h) and anything
// else that follows a run: each worker cuts its time into slices of
// TelemetryHeader::traceSliceNs and adds, per slice, how much of it went to
// computing, waiting and communicating; the coordinator records its own
// spans (evaluations) exactly. Both travel in shared memory rings, like the
// samples, so threads, processes and the monitor see one clock.
#include <atomic>
#include <cstddef>
#include <cstdint>

namespace hwl {

/// What a worker's time went to.
enum class TraceKind : std::uint32_t {
    Compute = 0,     ///< forward, backward and the update
    Wait = 1,        ///< for the lock, or for peers at a collective's barriers
    Communicate = 2, ///< reducing and copying in a collective (its waiting excluded)
    Gate = 3,        ///< at the epoch's end, for the others and the test set's evaluation
    Paced = 4,       ///< held to the pace, or paused: the user's choice, not the run's cost
};
constexpr std::size_t kTraceKinds = 5;
const char* traceKindName(TraceKind k);

/// One slice of one worker's time: nanoseconds per TraceKind.
struct TraceSlice {
    std::uint64_t index = 0; ///< the slice's start is index * slice length after the run's start
    std::uint32_t ns[kTraceKinds] = {};
    std::uint32_t steps = 0;  ///< steps that ended in it
    std::uint32_t offset = 0; ///< ns from the slice's start to the first time added to it
    /// Slices this record stands for: more than one when an interval of one
    /// kind filled them all (each then holds a whole slice of that kind).
    std::uint32_t span = 1;
};

/// A span the coordinator spent on one thing.
struct TraceSpan {
    enum Kind : std::uint32_t { Evaluate = 0 };
    Kind kind = Evaluate;
    std::uint32_t epoch = 0;
    std::int64_t beginNs = 0, endNs = 0; ///< monotonic clock
};

/// Single producer, single consumer, in shared memory; a full ring drops and
/// counts (the producer never waits).
template <class T, std::uint32_t Capacity>
struct TraceRing {
    static constexpr std::uint32_t kCapacity = Capacity;
    alignas(64) std::atomic<std::uint64_t> head{0};
    alignas(64) std::atomic<std::uint64_t> tail{0};
    std::atomic<std::uint64_t> dropped{0};
    T entries[Capacity];

    bool push(const T& v) {
        const auto h = head.load(std::memory_order_relaxed);
        if (h - tail.load(std::memory_order_acquire) >= Capacity) {
            dropped.fetch_add(1, std::memory_order_relaxed);
            return false;
        }
        entries[h % Capacity] = v;
        head.store(h + 1, std::memory_order_release);
        return true;
    }
    template <class Fn>
    std::size_t drain(Fn&& fn) {
        const auto h = head.load(std::memory_order_acquire);
        auto t = tail.load(std::memory_order_relaxed);
        const std::size_t count = std::size_t(h - t);
        for (; t < h; ++t)
            fn(entries[t % Capacity]);
        tail.store(h, std::memory_order_release);
        return count;
    }
};
/// 1024 slices of 5 ms: five seconds between two drains.
using SliceRing = TraceRing<TraceSlice, 1024>;
using SpanRing = TraceRing<TraceSpan, 1024>;

/// A worker's side: adds intervals of time to slices, pushing each slice
/// when the worker's time has passed it.
class SliceTracer {
public:
    SliceTracer(SliceRing& ring, std::int64_t originNs, std::int64_t sliceNs)
        : ring_(ring), originNs_(originNs), sliceNs_(sliceNs) {}
    /// [fromNs, toNs) went to `kind`; intervals come in time order.
    void add(TraceKind kind, std::int64_t fromNs, std::int64_t toNs);
    /// A step ended at `ns`.
    void countStep(std::int64_t ns);
    /// Pushes the slice in progress (the worker leaves).
    void flush();

private:
    void moveTo(std::uint64_t index);
    void addToCurrent(TraceKind kind, std::int64_t fromNs, std::int64_t toNs);

    SliceRing& ring_;
    std::int64_t originNs_, sliceNs_;
    std::int64_t startNs_ = 0, endNs_ = 0; ///< the open slice's bounds
    TraceSlice current_;
    bool open_ = false;
    bool empty_ = true; ///< nothing added to the open slice yet (its offset is not known)
};

} // namespace hwl
