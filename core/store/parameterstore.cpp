#include "store/parameterstore.h"

#include "optim/hogwild.h"
#include "util/errors.h"

namespace hwl {

namespace {
/// Where the versions start in a segment: after the floats, on a cache line.
std::size_t versionsOffset(std::int64_t count) {
    return (std::size_t(count) * sizeof(float) + 63) / 64 * 64;
}
} // namespace

std::size_t ParameterStore::segmentBytes(std::int64_t count, bool versions) {
    if (!versions)
        return std::size_t(count) * sizeof(float);
    return versionsOffset(count) +
           std::size_t(hogwild::versionBlocks(count)) * sizeof(std::uint32_t);
}

void ParameterStore::place(void* base, bool versions) {
    data_ = static_cast<float*>(base);
    if (versions)
        versions_ =
            reinterpret_cast<std::uint32_t*>(static_cast<char*>(base) + versionsOffset(count_));
}

ParameterStore ParameterStore::onHeap(std::int64_t count, bool versions) {
    ParameterStore store;
    store.heap_.assign(std::size_t(count), 0.0f);
    store.data_ = store.heap_.data();
    store.count_ = count;
    if (versions) {
        store.heapVersions_.assign(std::size_t(hogwild::versionBlocks(count)), 0u);
        store.versions_ = store.heapVersions_.data();
    }
    return store;
}

ParameterStore ParameterStore::inSharedMemory(std::int64_t count, const std::string& purpose,
                                              bool versions) {
    ParameterStore store;
    store.segment_ = SharedSegment::create(purpose, segmentBytes(count, versions));
    store.count_ = count;
    store.place(store.segment_.data(), versions);
    return store;
}

ParameterStore ParameterStore::open(const std::string& segmentName, std::int64_t count,
                                    bool versions) {
    ParameterStore store;
    store.segment_ = SharedSegment::open(segmentName);
    const std::size_t expected = segmentBytes(count, versions);
    if (store.segment_.size() != expected)
        throw RunError("parameter segment " + segmentName + " holds " +
                       std::to_string(store.segment_.size()) + " bytes, the model needs " +
                       std::to_string(expected) +
                       (versions ? " with the lost-update counter" : ""));
    store.count_ = count;
    store.place(store.segment_.data(), versions);
    return store;
}

} // namespace hwl
