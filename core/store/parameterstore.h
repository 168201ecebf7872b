#pragma once
// ParameterStore: who owns a model's flat float buffer: the heap (thread
// modes), or a POSIX shared-memory segment (process modes: one segment that
// every Hogwild worker maps, or one per replica in the not-shared pitfall).
// Either way the buffer is at least 64-byte aligned. With `versions` the
// store also holds the lost-update counter's block versions (one uint32 per
// 32 parameters, optim/hogwild.h), in the same segment for process workers.
#include "store/sharedsegment.h"
#include "util/alignedvector.h"

#include <cstdint>
#include <string>

namespace hwl {

class ParameterStore {
public:
    ParameterStore() = default;
    static ParameterStore onHeap(std::int64_t count, bool versions);
    /// A new segment (owned: unlinked when this store dies). Throws RunError.
    static ParameterStore inSharedMemory(std::int64_t count, const std::string& purpose,
                                         bool versions);
    /// Maps an existing store's segment (a worker process). Throws RunError
    /// when it does not hold `count` floats (and their versions, if asked).
    static ParameterStore open(const std::string& segmentName, std::int64_t count, bool versions);
    /// Bytes a shared store of `count` floats takes.
    static std::size_t segmentBytes(std::int64_t count, bool versions);

    float* data() { return data_; }
    const float* data() const { return data_; }
    std::int64_t size() const { return count_; }
    /// The block versions (versionBlocks(size()) of them, zero at first), or
    /// null when the store was made without them.
    std::uint32_t* versions() { return versions_; }
    /// The segment name, empty for the heap.
    const std::string& segmentName() const { return segment_.name(); }
    bool shared() const { return segment_.data() != nullptr; }
    /// Removes the segment's name; the buffer stays valid in this process.
    void unlink() { segment_.unlink(); }

private:
    void place(void* base, bool versions);

    AlignedVector<float> heap_;
    AlignedVector<std::uint32_t> heapVersions_;
    SharedSegment segment_;
    float* data_ = nullptr;
    std::uint32_t* versions_ = nullptr;
    std::int64_t count_ = 0;
};

} // namespace hwl
