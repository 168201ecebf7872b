#pragma once
// A gradient that knows which parameters it touches. Dense models touch one
// segment covering everything; the embedding bag touches only the table rows
// its batch used, so an update writes only those rows (the sparse case
// Hogwild was made for).
#include "util/alignedvector.h"
#include "util/cpukernelapi.h"

#include <cstdint>
#include <vector>

namespace hwl {

template <class T>
struct Gradient {
    /// `length` gradient values at values[valueIndex..] belong to
    /// parameters [offset, offset + length) of the flat buffer (the CPU
    /// kernels' own type: util/cpukernelapi.h).
    using Segment = HwlSegment;
    AlignedVector<T> values;
    std::vector<Segment> segments;

    std::int64_t touchedCount() const {
        std::int64_t n = 0;
        for (const auto& s : segments)
            n += s.length;
        return n;
    }
};

} // namespace hwl
