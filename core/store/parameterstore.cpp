#include "store/parameterstore.h"

#include "util/errors.h"

namespace hwl {

ParameterStore ParameterStore::onHeap(std::int64_t count) {
    ParameterStore store;
    store.heap_.assign(std::size_t(count), 0.0f);
    store.data_ = store.heap_.data();
    store.count_ = count;
    return store;
}

ParameterStore ParameterStore::inSharedMemory(std::int64_t count, const std::string& purpose) {
    ParameterStore store;
    store.segment_ = SharedSegment::create(purpose, std::size_t(count) * sizeof(float));
    store.data_ = static_cast<float*>(store.segment_.data());
    store.count_ = count;
    return store;
}

ParameterStore ParameterStore::open(const std::string& segmentName, std::int64_t count) {
    ParameterStore store;
    store.segment_ = SharedSegment::open(segmentName);
    if (store.segment_.size() != std::size_t(count) * sizeof(float))
        throw RunError("parameter segment " + segmentName + " holds " +
                       std::to_string(store.segment_.size()) + " bytes, the model needs " +
                       std::to_string(count * std::int64_t(sizeof(float))));
    store.data_ = static_cast<float*>(store.segment_.data());
    store.count_ = count;
    return store;
}

} // namespace hwl
