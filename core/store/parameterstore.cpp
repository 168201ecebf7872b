#include "store/parameterstore.h"

#include "optim/hogwild.h"
#include "util/errors.h"

namespace hwl {

namespace {
constexpr std::size_t kLine = 64;
std::size_t roundUp(std::size_t bytes) {
    return (bytes + kLine - 1) / kLine * kLine;
}
/// Where the versions start in a segment: after the floats, on a cache line.
std::size_t versionsOffset(std::int64_t count) {
    return roundUp(std::size_t(count) * sizeof(float));
}
/// Where the versions end (or the floats, without versions).
std::size_t versionsEnd(std::int64_t count, bool versions) {
    if (!versions)
        return std::size_t(count) * sizeof(float);
    return versionsOffset(count) +
           std::size_t(hogwild::versionBlocks(count)) * sizeof(std::uint32_t);
}
/// Where the shared state's step count starts: on a cache line after the
/// versions; its buffers follow on the next line.
std::size_t stepsOffset(std::int64_t count, bool versions) {
    return roundUp(versionsEnd(count, versions));
}
} // namespace

std::size_t ParameterStore::segmentBytes(std::int64_t count, StoreExtras extras) {
    if (extras.stateBuffers <= 0)
        return versionsEnd(count, extras.versions);
    return stepsOffset(count, extras.versions) + kLine +
           std::size_t(extras.stateBuffers) * std::size_t(count) * sizeof(float);
}

void ParameterStore::place(void* base, StoreExtras extras) {
    char* bytes = static_cast<char*>(base);
    data_ = static_cast<float*>(base);
    if (extras.versions)
        versions_ = reinterpret_cast<std::uint32_t*>(bytes + versionsOffset(count_));
    if (extras.stateBuffers > 0) {
        const std::size_t at = stepsOffset(count_, extras.versions);
        steps_ = reinterpret_cast<std::uint64_t*>(bytes + at);
        state_ = reinterpret_cast<float*>(bytes + at + kLine);
        stateBuffers_ = extras.stateBuffers;
    }
}

ParameterStore ParameterStore::onHeap(std::int64_t count, StoreExtras extras) {
    ParameterStore store;
    store.heap_.assign(std::size_t(count), 0.0f);
    store.data_ = store.heap_.data();
    store.count_ = count;
    if (extras.versions) {
        store.heapVersions_.assign(std::size_t(hogwild::versionBlocks(count)), 0u);
        store.versions_ = store.heapVersions_.data();
    }
    if (extras.stateBuffers > 0) {
        store.heapSteps_.assign(kLine / sizeof(std::uint64_t), 0u);
        store.steps_ = store.heapSteps_.data();
        store.heapState_.assign(std::size_t(extras.stateBuffers) * std::size_t(count), 0.0f);
        store.state_ = store.heapState_.data();
        store.stateBuffers_ = extras.stateBuffers;
    }
    return store;
}

ParameterStore ParameterStore::inSharedMemory(std::int64_t count, const std::string& purpose,
                                              StoreExtras extras) {
    ParameterStore store;
    store.segment_ = SharedSegment::create(purpose, segmentBytes(count, extras));
    store.count_ = count;
    store.place(store.segment_.data(), extras);
    return store;
}

ParameterStore ParameterStore::open(const std::string& segmentName, std::int64_t count,
                                    StoreExtras extras) {
    ParameterStore store;
    store.segment_ = SharedSegment::open(segmentName);
    const std::size_t expected = segmentBytes(count, extras);
    if (store.segment_.size() != expected) {
        std::string with;
        if (extras.versions)
            with = " with the lost-update counter";
        if (extras.stateBuffers > 0)
            with += std::string(with.empty() ? " with" : " and") + " the shared optimizer state";
        throw RunError("parameter segment " + segmentName + " holds " +
                       std::to_string(store.segment_.size()) + " bytes, the model needs " +
                       std::to_string(expected) + with);
    }
    store.count_ = count;
    store.place(store.segment_.data(), extras);
    return store;
}

} // namespace hwl
