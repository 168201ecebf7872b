#pragma once
// ParameterStore: who owns a model's flat float buffer: the heap (thread
// modes), or a POSIX shared-memory segment (process modes: one segment that
// every Hogwild worker maps, or one per replica in the not-shared pitfall).
// Either way the buffer is at least 64-byte aligned. With `versions` the
// store also holds the lost-update counter's block versions (one uint32 per
// 32 parameters, optim/hogwild.h), in the same segment for process workers.
// With `stateBuffers` (--optimizer-state shared) it holds the optimizer's
// state too, beside the parameters in the same segment: a step count (one
// uint64 on a cache line of its own, updated atomically) and stateBuffers
// buffers of `count` floats (OptimizerSpec::stateNames(), 64-byte aligned),
// which every worker updates as it does the parameters, without a lock.
#include "store/sharedsegment.h"
#include "util/alignedvector.h"

#include <cstdint>
#include <string>

namespace hwl {

/// What a store holds beside its parameters.
struct StoreExtras {
    bool versions = false;         ///< the lost-update counter's block versions
    std::int64_t stateBuffers = 0; ///< shared optimizer state: buffers, and a step count
};

class ParameterStore {
public:
    ParameterStore() = default;
    static ParameterStore onHeap(std::int64_t count, StoreExtras extras);
    /// A new segment (owned: unlinked when this store dies). Throws RunError.
    static ParameterStore inSharedMemory(std::int64_t count, const std::string& purpose,
                                         StoreExtras extras);
    /// Maps an existing store's segment (a worker process). Throws RunError
    /// when it does not hold `count` floats (and the extras asked for).
    static ParameterStore open(const std::string& segmentName, std::int64_t count,
                               StoreExtras extras);
    /// Bytes a shared store of `count` floats takes.
    static std::size_t segmentBytes(std::int64_t count, StoreExtras extras);

    float* data() { return data_; }
    const float* data() const { return data_; }
    std::int64_t size() const { return count_; }
    /// The block versions (versionBlocks(size()) of them, zero at first), or
    /// null when the store was made without them.
    std::uint32_t* versions() { return versions_; }
    /// The shared optimizer state's buffers (StoreExtras::stateBuffers of
    /// size() floats, zero at first), or null when the store has none.
    float* optimizerState() { return state_; }
    const float* optimizerState() const { return state_; }
    std::int64_t stateBuffers() const { return stateBuffers_; }
    /// The shared state's step count (zero at first; workers add to it
    /// atomically, one per update), or null when the store has no state.
    std::uint64_t* stateSteps() { return steps_; }
    const std::uint64_t* stateSteps() const { return steps_; }
    /// The segment name, empty for the heap.
    const std::string& segmentName() const { return segment_.name(); }
    bool shared() const { return segment_.data() != nullptr; }
    /// Removes the segment's name; the buffer stays valid in this process.
    void unlink() { segment_.unlink(); }

private:
    void place(void* base, StoreExtras extras);

    AlignedVector<float> heap_;
    AlignedVector<std::uint32_t> heapVersions_;
    AlignedVector<std::uint64_t> heapSteps_; ///< a cache line: the step count first
    AlignedVector<float> heapState_;
    SharedSegment segment_;
    float* data_ = nullptr;
    std::uint32_t* versions_ = nullptr;
    float* state_ = nullptr;
    std::uint64_t* steps_ = nullptr;
    std::int64_t count_ = 0;
    std::int64_t stateBuffers_ = 0;
};

} // namespace hwl
