#pragma once
// The contract of a loaded Dataset (data/dataset.h), checked after every
// load a fuzz target's input survives: exactly one storage filled and sized
// from rows and dim, labels in [0, numClasses), CSR offsets monotonic from 0
// to the index count, every index in [0, dim).
#include "data/dataset.h"
#include "fuzzutil.h"

#include <algorithm>

namespace hwl::fuzz {

inline void checkDataset(const Dataset& ds) {
    HWL_FUZZ_CHECK(ds.rows > 0);
    HWL_FUZZ_CHECK(ds.dim > 0);
    HWL_FUZZ_CHECK(ds.numClasses > 0);
    HWL_FUZZ_CHECK(ds.labels.size() == std::size_t(ds.rows));
    for (const std::int32_t label : ds.labels)
        HWL_FUZZ_CHECK(label >= 0 && label < ds.numClasses);
    if (!ds.isSparse()) {
        HWL_FUZZ_CHECK(ds.dense.size() == std::size_t(ds.rows) * std::size_t(ds.dim));
        HWL_FUZZ_CHECK(ds.offsets.empty() && ds.indices.empty() && ds.values.empty());
        return;
    }
    HWL_FUZZ_CHECK(ds.offsets.size() == std::size_t(ds.rows) + 1);
    HWL_FUZZ_CHECK(ds.offsets.front() == 0);
    HWL_FUZZ_CHECK(ds.offsets.back() == std::int64_t(ds.indices.size()));
    HWL_FUZZ_CHECK(std::is_sorted(ds.offsets.begin(), ds.offsets.end()));
    HWL_FUZZ_CHECK(ds.indices.size() == ds.values.size());
    for (const std::int32_t index : ds.indices)
        HWL_FUZZ_CHECK(index >= 0 && index < ds.dim);
}

} // namespace hwl::fuzz
